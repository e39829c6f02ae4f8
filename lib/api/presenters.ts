import type { AuditEvent, Controls, Payout, Principal } from '../payouts/model.js';
import type { Refund, RefundAuditEvent } from '../refunds/model.js';

/**
 * The JSON shapes the ops API answers with, all in one place. Amounts are integer kobo named `amount`
 * (and `charges`), next to `currency`; internal bookkeeping (fingerprints, leases, versions) stays inside.
 */

const principal = (p: Principal) => ({ id: p.id, kind: p.kind });

export function presentPayout(payout: Payout, audit?: readonly AuditEvent[]) {
  const { type, ...instruction } = payout.instruction;
  return {
    id: payout.id,
    type,
    status: payout.status,
    amount: payout.amountKobo,
    currency: payout.currency,
    narration: payout.narration,
    ...instruction,
    metadata: payout.metadata,
    idempotencyKey: payout.idempotencyKey,
    origin: payout.origin,
    ...(payout.scheduleAt && { scheduleAt: payout.scheduleAt }),
    requestedBy: principal(payout.requestedBy),
    ...(payout.approvedBy && { approvedBy: principal(payout.approvedBy) }),
    submissionCount: payout.submissionCount,
    ...(payout.nextActionAt && { nextActionAt: payout.nextActionAt }),
    ...(payout.receipt && {
      receipt: {
        transactionId: payout.receipt.transactionId,
        ...(payout.receipt.reference && { reference: payout.receipt.reference }),
        ...(payout.receipt.sessionId && { sessionId: payout.receipt.sessionId }),
        status: payout.receipt.status,
        charges: payout.receipt.chargesKobo,
        ...(payout.receipt.paidAt && { paidAt: payout.receipt.paidAt }),
      },
    }),
    ...(payout.failure && { failure: { code: payout.failure.code, message: payout.failure.message } }),
    ...(payout.paidTwice && {
      paidTwice: {
        attempts: [...payout.paidTwice.attempts],
        transactionIds: [...payout.paidTwice.transactionIds],
      },
    }),
    ...(payout.watchedAttempts?.length && {
      watchedAttempts: payout.watchedAttempts.map((a) => ({
        attempt: a.number,
        startedAt: a.startedAt,
        watchUntil: a.watchUntil,
      })),
      ...(payout.watchEndedAt && { watchEndedAt: payout.watchEndedAt }),
    }),
    ...(payout.resolutionProposal && {
      resolutionProposal: {
        outcome: 'succeeded' as const,
        transactionId: payout.resolutionProposal.transactionId,
        note: payout.resolutionProposal.note,
        proposedBy: principal(payout.resolutionProposal.proposedBy),
        proposedAt: payout.resolutionProposal.proposedAt,
        mismatch: payout.resolutionProposal.mismatch,
      },
    }),
    createdAt: payout.createdAt,
    updatedAt: payout.updatedAt,
    ...(audit && { audit: audit.map(presentAuditEvent) }),
  };
}

export function presentAuditEvent(event: AuditEvent) {
  return {
    sequence: event.sequence,
    at: event.at,
    actor: principal(event.actor),
    from: event.from,
    to: event.to,
    reason: event.reason,
    ...(event.details && { details: event.details }),
  };
}

export function presentPayoutPage(items: readonly Payout[], nextCursor: string | undefined) {
  return { items: items.map((payout) => presentPayout(payout)), ...(nextCursor && { nextCursor }) };
}

export function presentControls(controls: Controls) {
  return {
    paused: controls.paused,
    ...(controls.reason && { reason: controls.reason }),
    ...(controls.updatedBy && { updatedBy: principal(controls.updatedBy) }),
    ...(controls.updatedAt && { updatedAt: controls.updatedAt }),
  };
}

export function presentRefund(refund: Refund, audit?: readonly RefundAuditEvent[]) {
  return {
    id: refund.id,
    status: refund.status,
    transactionId: refund.transactionId,
    amount: refund.amountKobo,
    currency: 'NGN' as const,
    customerNote: refund.customerNote,
    merchantNote: refund.merchantNote,
    idempotencyKey: refund.idempotencyKey,
    requestedBy: principal(refund.requestedBy),
    ...(refund.approvedBy && { approvedBy: principal(refund.approvedBy) }),
    ...(refund.providerRefundId && { providerRefundId: refund.providerRefundId }),
    ...(refund.providerStatus && { providerStatus: refund.providerStatus }),
    ...(refund.failure && { failure: refund.failure }),
    createdAt: refund.createdAt,
    updatedAt: refund.updatedAt,
    ...(audit && {
      audit: audit.map((event) => ({
        sequence: event.sequence,
        at: event.at,
        actor: principal(event.actor),
        ...(event.from && { from: event.from }),
        to: event.to,
        reason: event.reason,
      })),
    }),
  };
}

/** A page of a provider list, passed through with its pagination normalised. */
export function presentProviderPage<T>(page: {
  items: T[];
  pagination: { page: number; perPage: number; totalRecords: number; totalPages: number };
}) {
  const { page: number, perPage, totalRecords, totalPages } = page.pagination;
  return { items: page.items, pagination: { page: number, perPage, totalRecords, totalPages } };
}
