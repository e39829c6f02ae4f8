import { PayoutStatus } from './model.js';

/**
 * Every allowed transition of a payout's lifecycle. Anything not listed is refused, and every
 * transition is written conditionally on the status (and version) it was decided from.
 *
 * ```
 * scheduled ──> pending_approval ──> pending ──> submitting ──> succeeded | failed | unknown
 *     │               │                 │  ^          │
 *     └───────────────┴──> cancelled <──┘  └──────────┘ (provider unavailable: nothing was sent)
 * unknown ──> succeeded | failed | needs_review        needs_review ──> succeeded | failed (by two people)
 * unknown ──> succeeded | failed (by two people, without waiting for the reconciler; paid twice and recovered
 *   is `succeeded` with `recovery`: the money left, so it never ends `failed`)
 * scheduled ──> missed (too late to pay)               pending ──> failed (daily cap exceeded, nothing sent)
 * unknown ──> pending (attempt proved absent: a new attempt with a new marker)
 * succeeded | failed | cancelled ──> needs_review (only the reconciler: an earlier, watched attempt showed up late)
 * ```
 */
export const ALLOWED_TRANSITIONS: Readonly<Record<PayoutStatus, readonly PayoutStatus[]>> = {
  [PayoutStatus.Scheduled]: [
    PayoutStatus.Pending,
    PayoutStatus.PendingApproval,
    PayoutStatus.Cancelled,
    PayoutStatus.Missed,
  ],
  [PayoutStatus.PendingApproval]: [PayoutStatus.Pending, PayoutStatus.Cancelled],
  [PayoutStatus.Pending]: [PayoutStatus.Submitting, PayoutStatus.Cancelled, PayoutStatus.Failed],
  [PayoutStatus.Submitting]: [
    PayoutStatus.Succeeded,
    PayoutStatus.Failed,
    PayoutStatus.Unknown,
    PayoutStatus.Pending,
  ],
  [PayoutStatus.Unknown]: [
    PayoutStatus.Succeeded,
    PayoutStatus.Failed,
    PayoutStatus.NeedsReview,
    PayoutStatus.Pending,
  ],
  [PayoutStatus.NeedsReview]: [PayoutStatus.Succeeded, PayoutStatus.Failed],
  // Final for people and for the submitter; only the reconciler's watch of earlier attempts can reopen them,
  // because money that moved late must never be left recorded as "paid once" or "not paid".
  [PayoutStatus.Succeeded]: [PayoutStatus.NeedsReview],
  [PayoutStatus.Failed]: [PayoutStatus.NeedsReview],
  [PayoutStatus.Cancelled]: [PayoutStatus.NeedsReview],
  [PayoutStatus.Missed]: [],
};

export function canTransition(from: PayoutStatus, to: PayoutStatus): boolean {
  return ALLOWED_TRANSITIONS[from].includes(to);
}
