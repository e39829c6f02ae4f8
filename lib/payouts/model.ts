import type { Approval, Principal, Rejection } from '../controls/index.js';

/**
 * The payout domain model. Amounts are integer kobo; timestamps are ISO 8601 UTC strings.
 */

export const PayoutStatus = {
  Scheduled: 'scheduled',
  PendingApproval: 'pending_approval',
  Pending: 'pending',
  Submitting: 'submitting',
  Succeeded: 'succeeded',
  Failed: 'failed',
  Unknown: 'unknown',
  NeedsReview: 'needs_review',
  Cancelled: 'cancelled',
  Missed: 'missed',
} as const;
export type PayoutStatus = (typeof PayoutStatus)[keyof typeof PayoutStatus];

export const PAYOUT_STATUSES = Object.values(PayoutStatus) as readonly PayoutStatus[];

/** Statuses a payout never leaves (needs_review is left only by a person resolving it). */
export const TERMINAL_STATUSES: ReadonlySet<PayoutStatus> = new Set([
  PayoutStatus.Succeeded,
  PayoutStatus.Failed,
  PayoutStatus.Cancelled,
  PayoutStatus.Missed,
]);

export const PayoutType = {
  BankTransfer: 'bank_transfer',
  WalletTransfer: 'wallet_transfer',
  WalletCredit: 'wallet_credit',
  WalletDebit: 'wallet_debit',
  ChildDebit: 'child_debit',
  ChildBankTransfer: 'child_bank_transfer',
} as const;
export type PayoutType = (typeof PayoutType)[keyof typeof PayoutType];

export const PAYOUT_TYPES = Object.values(PayoutType) as readonly PayoutType[];

/** Where a payout came from; part of the idempotency scope so an event id cannot collide with an API key. */
export const PayoutOrigin = {
  Api: 'api',
  Event: 'event',
  Schedule: 'schedule',
  Settlement: 'settlement',
  /** A row of a payout run (lib/payout-runs), approved with its run. */
  Run: 'run',
} as const;
export type PayoutOrigin = (typeof PayoutOrigin)[keyof typeof PayoutOrigin];

export interface Beneficiary {
  readonly bankCode: string;
  readonly accountNumber: string;
  readonly accountName: string;
}

/** What is paid, to whom, from where: one shape per payout type. */
export type PayoutInstruction =
  | { readonly type: 'bank_transfer'; readonly beneficiary: Beneficiary }
  | {
      readonly type: 'wallet_transfer';
      readonly sourceWalletId: string;
      readonly destinationWalletId: string;
    }
  | { readonly type: 'wallet_credit'; readonly walletId: string }
  | { readonly type: 'wallet_debit'; readonly walletId: string }
  | { readonly type: 'child_debit'; readonly childAccountId: string }
  | {
      readonly type: 'child_bank_transfer';
      readonly childAccountId: string;
      readonly beneficiary: Beneficiary;
    };

/** What the provider told us about a payout that moved money. */
export interface ProviderReceipt {
  readonly transactionId: string;
  readonly reference?: string;
  readonly sessionId?: string;
  readonly status: string;
  readonly chargesKobo: number;
  readonly paidAt?: string;
}

/** One attempt to submit a payout to the provider. */
export interface SubmissionAttempt {
  readonly attemptId: string;
  readonly number: number;
  readonly startedAt: string;
  /** Past this instant a payout still in `submitting` is presumed crashed and goes to reconciliation. */
  readonly leaseUntil: string;
  /**
   * Which attempt at the provider this is, the number in its marker: 1 plus the attempts proved absent before it
   * (claims answered "not sent" do not count). Absent on attempts made before re-attempts existed: 1.
   */
  readonly providerAttempt?: number;
}

/**
 * An earlier attempt the reconciler proved absent at the provider, after which the payout was sent again (or
 * failed). Its marker is still looked for until `watchUntil`: a record that shows up late is a double payment
 * (or a payment of a payout recorded as not paid), which is reported, never silent.
 */
export interface WatchedAttempt {
  readonly number: number;
  readonly startedAt: string;
  /** The Lagos day whose daily cap the attempt had reserved (released when it was proved absent). */
  readonly capDay?: string;
  readonly provedAbsentAt: string;
  readonly watchUntil: string;
  /**
   * The records that carry the attempt's marker (its payment found late or paid twice, or records that disagree
   * or are not final), as they were last shown to people (`transactionId=status`, sorted): by the watch, or read
   * by a resolution. The same records do not reopen the payout again, a change in them does, and the attempt stays
   * watched to the end of its window (a record not final may still turn paid; a marker may be paid once more).
   */
  readonly shownRecords?: string;
}

/** How a person closes a payout in `needs_review` or `unknown` (docs/payout-engine.md, "Resolving a payout"). */
export type ResolutionOutcome = 'succeeded' | 'failed' | 'paid_twice_recovered';

/**
 * A resolution proposed by one person, waiting for a second person (by stable identity) to send the same decision.
 * Every resolution takes two people; the proposal is what the first one decided, on the evidence read then.
 */
export interface ResolutionProposal {
  /** Absent on proposals stored before resolutions named their outcome: those were forced `succeeded`. */
  readonly outcome?: ResolutionOutcome;
  /** `succeeded`: the record named as the payment; `paid_twice_recovered`: the one kept as the receipt. */
  readonly transactionId?: string;
  /** `paid_twice_recovered`: how the extra money was recovered (the bank's recall or refund reference). */
  readonly recoveryReference?: string;
  /** The proposer overrides what the provider's records show (`mismatch`); the confirmer must send `force` too. */
  readonly forced?: boolean;
  readonly note: string;
  readonly proposedBy: Principal;
  readonly proposedAt: string;
  /** What the provider's records showed against the decision, which a forced proposal overrides. */
  readonly mismatch?: string;
}

/** How the extra money of a payout paid twice was recovered, as two people closed it (`paid_twice_recovered`). */
export interface PaidTwiceRecovery {
  readonly recoveryReference: string;
  /** The `paidTwice.transactionIds` this recovery covers: a further double payment is not covered by it. */
  readonly transactionIds: readonly string[];
  readonly proposedBy: Principal;
  readonly confirmedBy: Principal;
  readonly at: string;
}

export interface Payout {
  readonly id: string;
  readonly idempotencyKey: string;
  readonly origin: PayoutOrigin;
  /** SHA-256 of the canonical request, compared on idempotent replays. */
  readonly requestFingerprint: string;
  readonly instruction: PayoutInstruction;
  readonly amountKobo: number;
  readonly currency: 'NGN';
  readonly narration: string;
  readonly metadata: Readonly<Record<string, string | number | boolean | null>>;
  readonly status: PayoutStatus;
  /** Incremented by every transition; transitions are conditional on it. */
  readonly version: number;
  readonly requestedBy: Principal;
  readonly approvedBy?: Principal;
  /**
   * The first of two approvals, on a payout at or above the second-approval threshold: it waits in
   * `pending_approval` for a second approver (another person, not its requester), who is then `approvedBy`.
   */
  readonly firstApproval?: Approval;
  /** A second person's refusal while it waited for approval: the payout is `cancelled`, for good. */
  readonly rejection?: Rejection;
  readonly scheduleAt?: string;
  /** The recurrence or settlement this payout was derived from, when any. */
  readonly sourceRef?: string;
  /** What ties its log lines, messages and events together (lib/shared/correlation.ts). */
  readonly correlationId?: string;
  /** The W3C traceparent of the request that created it, which its submission continues (docs/operations.md). */
  readonly traceparent?: string;
  /** The source wallet the daily cap is counted against. */
  readonly capKey: string;
  /**
   * The Lagos calendar day whose cap this payout's claim reserved, while the reservation is held (cleared when a
   * claim is given back, nothing was sent, or an attempt is proved absent; kept on a refusal, with its failure).
   */
  readonly capDay?: string;
  readonly attempt?: SubmissionAttempt;
  readonly submissionCount: number;
  /** Of `submissionCount`, the attempts the provider answered 429: its rate limit, never counted toward failing. */
  readonly rateLimitedCount?: number;
  /** When the next submission (after an "unavailable" answer) or reconciliation is due. */
  readonly nextActionAt?: string;
  readonly receipt?: ProviderReceipt;
  readonly failure?: { readonly code: string; readonly message: string };
  /** The attempt whose provider record paid the payout, when it is not `attempt` (found after a re-attempt). */
  readonly paidByAttempt?: number;
  /** Earlier attempts proved absent and still watched for a late record (see WatchedAttempt). */
  readonly watchedAttempts?: readonly WatchedAttempt[];
  /** When the reconciler stopped watching the earlier attempts (every watch window over). */
  readonly watchEndedAt?: string;
  /** Set when a late record proved the payout paid twice: the attempt numbers and provider transaction ids. */
  readonly paidTwice?: { readonly attempts: readonly number[]; readonly transactionIds: readonly string[] };
  readonly resolutionProposal?: ResolutionProposal;
  /** Set when two people closed a payout paid twice as `paid_twice_recovered`: it stays `succeeded`, money left. */
  readonly recovery?: PaidTwiceRecovery;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** An immutable record of one transition, written in the same transaction as the state change. */
export interface AuditEvent {
  readonly payoutId: string;
  /** The payout version this transition produced; audit events of a payout are ordered by it. */
  readonly sequence: number;
  readonly at: string;
  readonly actor: Principal;
  readonly from: PayoutStatus | null;
  readonly to: PayoutStatus;
  readonly reason: string;
  readonly details?: Readonly<Record<string, string | number | boolean | null>>;
}

/** The global switches ops control. */
export interface Controls {
  readonly paused: boolean;
  readonly reason?: string;
  readonly updatedBy?: Principal;
  readonly updatedAt?: string;
}

/**
 * Whether `after` reports a double payment `before` did not: `paidTwice` stays on a payout once set, so a later
 * `needs_review` for another reason (a record that disagrees, a look-up that kept failing) must not be reported,
 * counted or published as paid twice again. A further attempt found paid changes it, and is reported.
 */
export function newlyPaidTwice(
  before: Pick<Payout, 'paidTwice'> | undefined,
  after: Pick<Payout, 'paidTwice'>,
): boolean {
  if (!after.paidTwice) return false;
  const key = (paid: Payout['paidTwice']) =>
    paid ? `${paid.attempts.join(',')}|${paid.transactionIds.join(',')}` : '';
  return key(after.paidTwice) !== key(before?.paidTwice);
}

/**
 * Whether the payout was paid twice and no recovery covers that double yet: such a payout is closed only as
 * `paid_twice_recovered`, never as `failed` (the money left twice) nor as a plain `succeeded` (that hides it).
 */
export function unrecoveredDouble(payout: Pick<Payout, 'paidTwice' | 'recovery'>): boolean {
  if (!payout.paidTwice) return false;
  const covered = new Set(payout.recovery?.transactionIds ?? []);
  return payout.paidTwice.transactionIds.some((id) => !covered.has(id));
}
