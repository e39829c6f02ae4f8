import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcilePayouts } from '../../lib/payouts/engine/reconcile-payouts.js';
import { bankTransfer, command, type EngineHarness, startEngineHarness } from '../support/engine-harness.js';

/** Quiet logs: "reconciliation pass" at INFO every 2 s was once half of what `npm start` printed. */
describe('logs say what was decided, not that a tick ran', () => {
  let h: EngineHarness;

  beforeAll(async () => {
    h = await startEngineHarness();
  });
  afterAll(async () => h.close());

  const infoLines = (from: number) => h.logger.entries.slice(from).filter((entry) => entry.level === 'info');

  it('says nothing at INFO for an idle reconciliation pass, even with payouts left in needs_review or unknown', async () => {
    const { payout } = await h.engine.create(command(bankTransfer(777_700), 'logging-unknown'));
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'error-500', times: 1 });
    await h.engine.submit(payout.id);
    expect((await h.engine.get(payout.id))?.status).toBe('unknown');
    h.clock.advance(h.engine.ctx.config.reconcileIntervalMs);
    await reconcilePayouts(h.engine.ctx); // looks, finds nothing yet: within the grace period
    const before = h.logger.entries.length;
    await reconcilePayouts(h.engine.ctx);
    await reconcilePayouts(h.engine.ctx);
    expect(infoLines(before)).toEqual([]);
  });

  it('logs one INFO line per decision, naming the payout', async () => {
    const { payout } = await h.engine.create(command(bankTransfer(777_800), 'logging-found'));
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'timeout-after-commit', times: 1 });
    await h.engine.submit(payout.id);
    h.clock.advance(h.engine.ctx.config.reconcileIntervalMs);
    const before = h.logger.entries.length;
    await reconcilePayouts(h.engine.ctx);
    const decided = infoLines(before).filter((entry) => entry.message === 'payout reconciled');
    expect(decided).toEqual([
      expect.objectContaining({ fields: expect.objectContaining({ payoutId: payout.id, to: 'succeeded' }) }),
    ]);
  });
});

describe('a tick logs at INFO only when it did something', () => {
  it('reads a report of looks only as idle, and any count of work done as activity', async () => {
    const { reportsActivity } = await import('../../lib/shared/logger.js');
    const idle = {
      recurrences: {
        read: 3,
        materialised: 0,
        late: 0,
        skipped: 0,
        completed: 0,
        conflicts: 0,
        leftOver: false,
      },
      payouts: { released: 0, missed: 0, submitted: 0, skipped: 0, outcomes: {}, leftOver: false },
      refunds: { looked: 2, answered: 0 },
    };
    expect(reportsActivity(idle)).toBe(false);
    expect(reportsActivity({ ...idle, payouts: { ...idle.payouts, outcomes: { succeeded: 1 } } })).toBe(true);
    expect(reportsActivity({ ...idle, refunds: { looked: 2, answered: 1 } })).toBe(true);
  });
});
