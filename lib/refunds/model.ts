import type { Approval, Principal, Rejection } from '../controls/index.js';
import {
  capCounterOf,
  type DebitedAccount,
  MoneyEntryPoint,
  type MoneyInstruction,
} from '../controls/index.js';
import { clientText } from '../shared/text.js';
import * as z from '../shared/zod.js';

/**
 * Refund states. `requested` is written before the provider is called; the provider's answer moves it on.
 * `unknown` (timeout or 5xx after sending) is never resent: a person checks the provider's records.
 */
export const RefundStatus = {
  /** At or above the approval threshold: nothing is sent until a second person approves it. */
  PendingApproval: 'pending_approval',
  /** Recorded (and approved where needed), waiting to be sent; also while payouts are paused. */
  Requested: 'requested',
  /** Claimed by one request, which is calling the provider now (or crashed doing so: see `unknown`). */
  Sending: 'sending',
  /** The provider accepted the request; its own refund is `pending`. */
  Pending: 'pending',
  /** Refused, nothing happened: by the provider (`failure.code` from it) or by the daily cap (`DAILY_CAP_EXCEEDED`). */
  Rejected: 'rejected',
  /** The provider could not be reached; nothing was sent. */
  NotSent: 'not_sent',
  /** The request may have reached the provider; check by hand. */
  Unknown: 'unknown',
  /** Withdrawn by a person before anything was sent (waiting for approval, for a resume, or for a retry). */
  Cancelled: 'cancelled',
} as const;
export type RefundStatus = (typeof RefundStatus)[keyof typeof RefundStatus];

/**
 * The body of `POST /refunds`; `amount` is integer kobo. Built on first use (z.lazy): the sweep loads this module
 * to send refunds and never parses a request.
 */
export const CreateRefundRequestSchema = z.lazy(() =>
  z.strictObject({
    /** The provider transaction being refunded. */
    transactionId: z.string().check(z.trim(), z.minLength(1), z.maxLength(100)),
    /** Integer kobo, at least 1. */
    amount: z.int().check(z.positive(), z.lte(Number.MAX_SAFE_INTEGER)),
    customerNote: clientText({ max: 500 }),
    merchantNote: clientText({ max: 500 }),
  }),
);
export type CreateRefundRequest = z.infer<typeof CreateRefundRequestSchema>;

export interface Refund {
  readonly id: string;
  readonly idempotencyKey: string;
  /** SHA-256 of the canonical request, compared on idempotent replays. */
  readonly requestFingerprint: string;
  readonly transactionId: string;
  readonly amountKobo: number;
  readonly customerNote: string;
  readonly merchantNote: string;
  readonly status: RefundStatus;
  /** Incremented by every change; changes are conditional on it. */
  readonly version: number;
  readonly requestedBy: Principal;
  /** The second person who approved it (refunds at or above the approval threshold). */
  readonly approvedBy?: Principal;
  /** The first of two approvals (at or above the second-approval threshold): it waits for a second approver. */
  readonly firstApproval?: Approval;
  /** A second person's refusal while it waited for approval: the refund is `cancelled`, never sent. */
  readonly rejection?: Rejection;
  /** What the provider said was paid on the transaction when the refund was accepted, in kobo. */
  readonly amountPaidKobo?: number;
  /**
   * True while the amount counts in the transaction's refunded total (from acceptance; released when the refund
   * ends refused or the sweeper gives up on it; absent on refunds stored before the total was kept).
   */
  readonly countsInTotal?: boolean;
  /** The day (cap time zone) whose `merchant` daily cap holds the amount, from the claim until released. */
  readonly capDay?: string;
  readonly providerRefundId?: string;
  readonly providerStatus?: string;
  readonly failure?: { readonly code: string; readonly message: string };
  /** Claims made to send it (absent on refunds stored before attempts were counted: none counted). */
  readonly sendAttempts?: number;
  /** Id of the latest claim, so a claimer whose committed claim's answer was lost knows the claim is its own. */
  readonly claimId?: string;
  /** An `unknown` refund's settlement proposed by one person, applied only when a second person confirms it. */
  readonly resolutionProposal?: RefundResolutionProposal;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/**
 * How a person settles an `unknown` refund after checking the provider's records by hand: `not_sent` (the
 * provider has no such refund: it is cancelled and gives back what it holds) or `accepted` (the provider's refund
 * `providerRefundId` exists: it is `pending`, as if the provider had answered).
 */
export type RefundResolution =
  | { readonly outcome: 'not_sent'; readonly note: string }
  | { readonly outcome: 'accepted'; readonly providerRefundId: string; readonly note: string };

/** A resolution proposed by one person, waiting for a second person to send the same one. */
export type RefundResolutionProposal = RefundResolution & {
  readonly proposedBy: Principal;
  readonly proposedAt: string;
};

/** One change of a refund, written in the same transaction as the change (`from` absent at creation). */
export interface RefundAuditEvent {
  readonly refundId: string;
  /** The refund's version after the change. */
  readonly sequence: number;
  readonly at: string;
  readonly actor: Principal;
  readonly from?: RefundStatus;
  readonly to: RefundStatus;
  readonly reason: string;
}

/** The account a refund's money leaves: the merchant's main wallet, as bank payouts (the gate derives its counter). */
export const REFUND_DEBITS: DebitedAccount = { kind: 'main_wallet' };

/** The cap counter a refund's claim reserves on, as the gate derives it (the main wallet's needs no configuration). */
export const REFUND_CAP_COUNTER = capCounterOf({}, REFUND_DEBITS);

/**
 * A refund as the money instruction the gate judges: the main wallet debited by its amount, set by its request,
 * released by `releasedBy` (its requester, or the person approving it).
 */
export function describeRefund(
  refund: { readonly amountKobo: number },
  releasedBy: Principal,
): MoneyInstruction {
  return {
    entryPoint: MoneyEntryPoint.Refund,
    debits: REFUND_DEBITS,
    amount: { kobo: refund.amountKobo, source: { from: 'request' }, path: 'amount' },
    releasedBy,
  };
}

/** How long a `requested` or `not_sent` refund waits before the sweeper sends it (its own request may still be). */
export const REFUND_RETRY_DELAY_MS = 60_000;
/** A `sending` claim older than this is presumed crashed mid-call: its refund becomes `unknown`, never resent. */
export const REFUND_SENDING_LEASE_MS = 120_000;

/**
 * The whole provider call of a refund sent without a request's send window (the sweep, a replay or approval made
 * outside the API), retries and credential reads included, instead of the client's default (which PROVIDER_TIMEOUT_MS
 * may raise): with the claim and the recording it must fit the sweep's stop margin
 * (REFUND_STOP_STARTING_BEFORE_DEADLINE_MS, lib/jobs/scheduled.ts; test/infra/handler-limits.test.ts). A call
 * cut off after sending leaves the refund `unknown`.
 */
export const REFUND_SEND_DEADLINE_MS = 20_000;

/** The sweeper stops retrying a refund the provider could not take after this many attempts. */
export const MAX_REFUND_SEND_ATTEMPTS = 10;
/** The longest wait between two attempts; waits double from `REFUND_RETRY_DELAY_MS` up to it. */
export const MAX_REFUND_RETRY_DELAY_MS = 60 * 60_000;

/**
 * When the sweeper should next look at a refund, or undefined once it is settled (pending, rejected, unknown)
 * or the sweeper has given up on it (`not_sent` after `MAX_REFUND_SEND_ATTEMPTS`; a replay still tries).
 */
export function refundWorkDueAt(refund: Refund): string | undefined {
  const updated = Date.parse(refund.updatedAt);
  const attempts = refund.sendAttempts ?? 0;
  switch (refund.status) {
    case RefundStatus.Requested:
      return new Date(updated + REFUND_RETRY_DELAY_MS).toISOString();
    case RefundStatus.NotSent: {
      if (attempts >= MAX_REFUND_SEND_ATTEMPTS) return undefined;
      const wait = Math.min(
        REFUND_RETRY_DELAY_MS * 2 ** Math.max(0, attempts - 1),
        MAX_REFUND_RETRY_DELAY_MS,
      );
      return new Date(updated + wait).toISOString();
    }
    case RefundStatus.Sending:
      return new Date(updated + REFUND_SENDING_LEASE_MS).toISOString();
    default:
      return undefined;
  }
}
