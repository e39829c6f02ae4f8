import { PayoutStatus } from './model.js';

/**
 * Every allowed transition of a payout's lifecycle. Anything not listed is refused, and every
 * transition is written conditionally on the status (and version) it was decided from.
 *
 * ```
 * scheduled ──> pending_approval ──> pending ──> submitting ──> succeeded | failed | unknown
 *     │               │                 │  ^          │
 *     └───────────────┴──> cancelled <──┘  └──────────┘ (provider unavailable: nothing was sent)
 * unknown ──> succeeded | failed | needs_review        needs_review ──> succeeded | failed (by a person)
 * scheduled ──> missed (too late to pay)               pending ──> failed (daily cap exceeded, nothing sent)
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
  [PayoutStatus.Unknown]: [PayoutStatus.Succeeded, PayoutStatus.Failed, PayoutStatus.NeedsReview],
  [PayoutStatus.NeedsReview]: [PayoutStatus.Succeeded, PayoutStatus.Failed],
  [PayoutStatus.Succeeded]: [],
  [PayoutStatus.Failed]: [],
  [PayoutStatus.Cancelled]: [],
  [PayoutStatus.Missed]: [],
};

export function canTransition(from: PayoutStatus, to: PayoutStatus): boolean {
  return ALLOWED_TRANSITIONS[from].includes(to);
}
