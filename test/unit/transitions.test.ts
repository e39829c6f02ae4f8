import { describe, expect, it } from 'vitest';
import { PAYOUT_STATUSES, PayoutStatus, TERMINAL_STATUSES } from '../../lib/payouts/model.js';
import { ALLOWED_TRANSITIONS, canTransition } from '../../lib/payouts/transitions.js';

describe('the payout lifecycle', () => {
  it('lets a final status go nowhere but to needs_review (an earlier attempt showed up late)', () => {
    for (const status of TERMINAL_STATUSES) {
      for (const to of PAYOUT_STATUSES) {
        const reopenedByWatch = to === PayoutStatus.NeedsReview && status !== PayoutStatus.Missed;
        expect(canTransition(status, to), `${status} -> ${to}`).toBe(reopenedByWatch);
      }
    }
  });

  it('never sends an unknown payout again directly; only a new attempt through pending, after proved absence', () => {
    expect(canTransition(PayoutStatus.Unknown, PayoutStatus.Submitting)).toBe(false);
    expect(canTransition(PayoutStatus.Unknown, PayoutStatus.Pending)).toBe(true);
    expect(canTransition(PayoutStatus.NeedsReview, PayoutStatus.Pending)).toBe(false);
    expect(canTransition(PayoutStatus.NeedsReview, PayoutStatus.Submitting)).toBe(false);
  });

  it('cancels only before submission', () => {
    const cancellable = PAYOUT_STATUSES.filter((status) => canTransition(status, PayoutStatus.Cancelled));
    expect(cancellable.sort()).toEqual(
      [PayoutStatus.Pending, PayoutStatus.PendingApproval, PayoutStatus.Scheduled].sort(),
    );
  });

  it('reaches submitting only from pending, and succeeded only through a provider answer, a look-up or a person', () => {
    expect(PAYOUT_STATUSES.filter((status) => canTransition(status, PayoutStatus.Submitting))).toEqual([
      PayoutStatus.Pending,
    ]);
    expect(PAYOUT_STATUSES.filter((status) => canTransition(status, PayoutStatus.Succeeded)).sort()).toEqual(
      [PayoutStatus.Submitting, PayoutStatus.Unknown, PayoutStatus.NeedsReview].sort(),
    );
  });

  it('lists every status', () => {
    expect(Object.keys(ALLOWED_TRANSITIONS).sort()).toEqual([...PAYOUT_STATUSES].sort());
  });
});
