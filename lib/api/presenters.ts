import type { Approval, Principal, Rejection } from '../controls/index.js';
import type {
  AuditEvent,
  Beneficiary,
  Controls,
  Payout,
  PayoutInstruction,
  ResolutionProposal,
} from '../payouts/index.js';
import type { Refund, RefundAuditEvent, RefundResolutionProposal } from '../refunds/index.js';
import { clipText, FIELD_MAXIMA } from '../shared/field-limits.js';
import type * as z from '../shared/zod.js';
import { providerFields } from './responses/provider.js';

/**
 * The JSON shapes the ops API answers with, all in one place. Amounts are integer kobo named `amount`
 * (and `charges`), next to `currency`; internal bookkeeping (fingerprints, leases, versions) stays inside.
 */

const {
  id: ID,
  reference: REF,
  word: WORD,
  name: NAME,
  text: TEXT,
  items: ITEMS,
  audit: AUDIT,
} = FIELD_MAXIMA;

export const principal = (p: Principal) => ({ id: clipText(p.id, ID), kind: p.kind });

/** A second person's refusal as answered (`rejection`: RejectionSchema). */
export const presentRejection = (rejection: Rejection) => ({
  by: principal(rejection.actor),
  reason: clipText(rejection.reason, TEXT),
  at: rejection.at,
});

/** The first of two approvals as answered (`firstApproval`: FirstApprovalSchema). */
export const presentApproval = (approval: Approval) => ({ by: principal(approval.actor), at: approval.at });

/** A field issue as answered: its path and message within their maxima. */
export const issueOf = (issue: { readonly path: string; readonly message: string }) => ({
  path: clipText(issue.path, NAME),
  message: clipText(issue.message, TEXT),
});

type Labels = Readonly<Record<string, string | number | boolean | null>>;

/**
 * Labels within the answer's maxima. A client's are refused above them (lib/payouts/schemas.ts); this keeps
 * what the service or the provider wrote within them too, so the largest answer is known
 * (test/infra/api-answer-sizes.test.ts).
 */
function labels(record: Labels): Record<string, string | number | boolean | null> {
  const entries = Object.entries(record)
    .slice(0, FIELD_MAXIMA.metadataKeys)
    .map(([key, value]) => [
      clipText(key, FIELD_MAXIMA.metadataKey),
      typeof value === 'string' ? clipText(value, FIELD_MAXIMA.metadataValue) : value,
    ]);
  // At most `metadataBytes` as JSON, as a client's are refused above it: the last keys go first.
  while (
    entries.length > 0 &&
    Buffer.byteLength(JSON.stringify(Object.fromEntries(entries))) > FIELD_MAXIMA.metadataBytes
  )
    entries.pop();
  return Object.fromEntries(entries);
}

/** The newest `max` entries of a list kept oldest first. */
export const newest = <T>(list: readonly T[], max: number = AUDIT): T[] =>
  list.slice(Math.max(0, list.length - max));

/**
 * `{ [name]: n }` when a list of `length` entries answered at most `max` left `n` out, nothing otherwise: an
 * auditor sees that a trail goes further back than the answer.
 */
export const omitted = <K extends string>(name: K, length: number, max: number = AUDIT) =>
  (length > max ? { [name]: length - max } : {}) as { [P in K]?: number };

const party = (b: Beneficiary) => ({
  bankCode: clipText(b.bankCode, WORD),
  accountNumber: clipText(b.accountNumber, WORD),
  accountName: clipText(b.accountName, NAME),
});

/** The instruction's ids and beneficiary (only those of its type), each within its maximum. */
const instructionOf = (i: PayoutInstruction) => ({
  ...('beneficiary' in i && { beneficiary: party(i.beneficiary) }),
  ...('sourceWalletId' in i && { sourceWalletId: clipText(i.sourceWalletId, WORD) }),
  ...('destinationWalletId' in i && { destinationWalletId: clipText(i.destinationWalletId, WORD) }),
  ...('walletId' in i && { walletId: clipText(i.walletId, WORD) }),
  ...('childAccountId' in i && { childAccountId: clipText(i.childAccountId, WORD) }),
});

/**
 * A payout as answered. Every text is within the response schema's maximum (lib/shared/field-limits.ts): what a
 * client wrote is already, what the provider sent (receipts, failures) is clipped, and lists keep their newest.
 */
export function presentPayout(payout: Payout, audit?: readonly AuditEvent[]) {
  return {
    id: payout.id,
    type: payout.instruction.type,
    status: payout.status,
    amount: payout.amountKobo,
    currency: payout.currency,
    narration: clipText(payout.narration, NAME),
    ...instructionOf(payout.instruction),
    metadata: labels(payout.metadata),
    idempotencyKey: clipText(payout.idempotencyKey, ID),
    origin: payout.origin,
    ...(payout.correlationId && { correlationId: clipText(payout.correlationId, ID) }),
    ...(payout.scheduleAt && { scheduleAt: payout.scheduleAt }),
    requestedBy: principal(payout.requestedBy),
    ...(payout.approvedBy && { approvedBy: principal(payout.approvedBy) }),
    ...(payout.firstApproval && { firstApproval: presentApproval(payout.firstApproval) }),
    ...(payout.rejection && { rejection: presentRejection(payout.rejection) }),
    submissionCount: payout.submissionCount,
    ...(payout.nextActionAt && { nextActionAt: payout.nextActionAt }),
    ...(payout.receipt && {
      receipt: {
        transactionId: clipText(payout.receipt.transactionId, REF),
        ...(payout.receipt.reference && { reference: clipText(payout.receipt.reference, REF) }),
        ...(payout.receipt.sessionId && { sessionId: clipText(payout.receipt.sessionId, REF) }),
        status: clipText(payout.receipt.status, WORD),
        charges: payout.receipt.chargesKobo,
        ...(payout.receipt.paidAt && { paidAt: clipText(payout.receipt.paidAt, WORD) }),
      },
    }),
    ...(payout.failure && { failure: failureOf(payout.failure) }),
    ...(payout.paidTwice && {
      paidTwice: {
        attempts: payout.paidTwice.attempts.slice(0, ITEMS),
        transactionIds: payout.paidTwice.transactionIds.slice(0, ITEMS).map((one) => clipText(one, REF)),
      },
    }),
    ...(payout.watchedAttempts?.length && {
      watchedAttempts: newest(payout.watchedAttempts, ITEMS).map((a) => ({
        attempt: a.number,
        startedAt: a.startedAt,
        watchUntil: a.watchUntil,
      })),
      ...(payout.watchEndedAt && { watchEndedAt: payout.watchEndedAt }),
    }),
    ...(payout.resolutionProposal && {
      resolutionProposal: presentPayoutProposal(payout.resolutionProposal),
    }),
    ...(payout.recovery && {
      recovery: {
        recoveryReference: clipText(payout.recovery.recoveryReference, REF),
        proposedBy: principal(payout.recovery.proposedBy),
        confirmedBy: principal(payout.recovery.confirmedBy),
        at: payout.recovery.at,
      },
    }),
    createdAt: payout.createdAt,
    updatedAt: payout.updatedAt,
    ...(audit && {
      audit: newest(audit, AUDIT).map(presentAuditEvent),
      ...omitted('auditOmitted', audit.length),
    }),
  };
}

/** A failure as answered: its code and message within their maxima. */
export const failureOf = (failure: { readonly code: string; readonly message: string }) => ({
  code: clipText(failure.code, WORD),
  message: clipText(failure.message, FIELD_MAXIMA.message),
});

export function presentAuditEvent(event: AuditEvent) {
  return {
    sequence: event.sequence,
    at: event.at,
    actor: principal(event.actor),
    from: event.from,
    to: event.to,
    reason: clipText(event.reason, TEXT),
    ...(event.details && { details: labels(event.details) }),
  };
}

export function presentPayoutPage(items: readonly Payout[], nextCursor: string | undefined) {
  // A listing leaves out the first of two approvals (lib/api/responses/payout.ts, `firstApprovalField`).
  const listed = items.map(({ firstApproval, ...payout }) => presentPayout(payout));
  return { items: listed, ...(nextCursor && { nextCursor }) };
}

export function presentControls(controls: Controls) {
  return {
    paused: controls.paused,
    ...(controls.reason && { reason: clipText(controls.reason, TEXT) }),
    ...(controls.updatedBy && { updatedBy: principal(controls.updatedBy) }),
    ...(controls.updatedAt && { updatedAt: controls.updatedAt }),
  };
}

/** A payout's proposed resolution; one stored before outcomes were named was a forced `succeeded`. */
function presentPayoutProposal(proposal: ResolutionProposal) {
  return {
    outcome: proposal.outcome ?? ('succeeded' as const),
    ...(proposal.transactionId !== undefined && { transactionId: clipText(proposal.transactionId, REF) }),
    ...(proposal.recoveryReference !== undefined && {
      recoveryReference: clipText(proposal.recoveryReference, REF),
    }),
    forced: proposal.forced ?? proposal.outcome === undefined,
    note: clipText(proposal.note, TEXT),
    proposedBy: principal(proposal.proposedBy),
    proposedAt: proposal.proposedAt,
    ...(proposal.mismatch !== undefined && { mismatch: clipText(proposal.mismatch, TEXT) }),
  };
}

function presentResolutionProposal(proposal: RefundResolutionProposal) {
  return {
    outcome: proposal.outcome,
    ...(proposal.outcome === 'accepted' && { providerRefundId: clipText(proposal.providerRefundId, REF) }),
    note: clipText(proposal.note, TEXT),
    proposedBy: principal(proposal.proposedBy),
    proposedAt: proposal.proposedAt,
  };
}

export function presentRefund(refund: Refund, audit?: readonly RefundAuditEvent[]) {
  return {
    id: refund.id,
    status: refund.status,
    transactionId: clipText(refund.transactionId, REF),
    amount: refund.amountKobo,
    currency: 'NGN' as const,
    customerNote: clipText(refund.customerNote, TEXT),
    merchantNote: clipText(refund.merchantNote, TEXT),
    idempotencyKey: clipText(refund.idempotencyKey, ID),
    requestedBy: principal(refund.requestedBy),
    ...(refund.approvedBy && { approvedBy: principal(refund.approvedBy) }),
    ...(refund.firstApproval && { firstApproval: presentApproval(refund.firstApproval) }),
    ...(refund.rejection && { rejection: presentRejection(refund.rejection) }),
    ...(refund.providerRefundId && { providerRefundId: clipText(refund.providerRefundId, REF) }),
    ...(refund.providerStatus && { providerStatus: clipText(refund.providerStatus, WORD) }),
    ...(refund.failure && { failure: failureOf(refund.failure) }),
    ...(refund.resolutionProposal && {
      resolutionProposal: presentResolutionProposal(refund.resolutionProposal),
    }),
    createdAt: refund.createdAt,
    updatedAt: refund.updatedAt,
    ...(audit && {
      audit: newest(audit, AUDIT).map((event) => ({
        sequence: event.sequence,
        at: event.at,
        actor: principal(event.actor),
        ...(event.from && { from: event.from }),
        to: event.to,
        reason: clipText(event.reason, TEXT),
      })),
      ...omitted('auditOmitted', audit.length),
    }),
  };
}

/** A provider record's documented fields (the others left out), its strings clipped to 100 characters. */
function providerRecord(record: Readonly<Record<string, unknown>>, schema: z.ZodMiniType) {
  const answered: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(providerFields(schema))) {
    const value = record[key];
    if (value === undefined) continue;
    answered[key] =
      typeof value === 'string'
        ? clipText(value, FIELD_MAXIMA.name)
        : value !== null && typeof value === 'object'
          ? providerRecord(value as Record<string, unknown>, field)
          : value;
  }
  return answered;
}

/** A page of a provider list: at most a page of its records, each within its maxima, pagination normalised. */
export function presentProviderPage(
  page: {
    items: readonly object[];
    pagination: { page: number; perPage: number; totalRecords: number; totalPages: number };
  },
  schema: z.ZodMiniType,
) {
  const { page: number, perPage, totalRecords, totalPages } = page.pagination;
  return {
    items: page.items
      .slice(0, FIELD_MAXIMA.page)
      .map((item) => providerRecord(item as Record<string, unknown>, schema)),
    pagination: { page: number, perPage, totalRecords, totalPages },
  };
}
