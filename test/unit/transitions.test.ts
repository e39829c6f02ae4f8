import { describe, expect, it } from 'vitest';
import { PAYOUT_STATUSES, PayoutStatus, TERMINAL_STATUSES } from '../../lib/payouts/model.js';
import { ALLOWED_TRANSITIONS, canTransition } from '../../lib/payouts/transitions.js';

describe('the payout lifecycle', () => {
  it('lets no final status go anywhere', () => {
    for (const status of TERMINAL_STATUSES) {
      for (const to of PAYOUT_STATUSES) expect(canTransition(status, to), `${status} -> ${to}`).toBe(false);
    }
  });

  it('never moves a payout whose outcome is unknown back to a status that could resend it', () => {
    for (const from of [PayoutStatus.Unknown, PayoutStatus.NeedsReview]) {
      expect(canTransition(from, PayoutStatus.Pending)).toBe(false);
      expect(canTransition(from, PayoutStatus.Submitting)).toBe(false);
    }
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
