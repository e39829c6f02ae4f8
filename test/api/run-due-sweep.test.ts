import { describe, expect, it } from 'vitest';
import { runDueSweep } from '../../lib/jobs/scheduled.js';
import type { SweepReport } from '../../lib/payouts/engine/sweep.js';
import type { RecurrenceSweepReport } from '../../lib/recurrence/materialise.js';

const idleRecurrences: RecurrenceSweepReport = {
  read: 0,
  materialised: 0,
  late: 0,
  skipped: 0,
  completed: 0,
  conflicts: 0,
  leftOver: false,
};
const idlePayouts: SweepReport = {
  released: 0,
  missed: 0,
  submitted: 0,
  skipped: 0,
  outcomes: {},
  leftOver: false,
};

describe('runDueSweep', () => {
  it('lets the other sweeps finish before it reports one that failed', async () => {
    const finished: string[] = [];
    let releaseRefunds!: () => void;
    const refundsHeld = new Promise<void>((resolve) => {
      releaseRefunds = resolve;
    });
    const tick = runDueSweep(
      {
        engine: {
          sweep: async () => {
            throw new Error('store unreachable');
          },
        },
        recurrences: {
          sweep: async () => {
            finished.push('recurrences');
            return idleRecurrences;
          },
        },
        refunds: {
          sweep: async () => {
            await refundsHeld;
            finished.push('refunds');
            return { looked: 1, answered: 1 };
          },
        },
      },
      60_000,
    );
    let settled = false;
    tick
      .catch(() => undefined)
      .finally(() => {
        settled = true;
      });
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    releaseRefunds();
    await expect(tick).rejects.toThrow('store unreachable');
    expect(finished).toEqual(['recurrences', 'refunds']);
  });

  it('looks for due payouts once more only when recurrences materialised some', async () => {
    const sweeps: number[] = [];
    const parts = (materialised: number) => ({
      engine: {
        sweep: async () => {
          sweeps.push(materialised);
          return { ...idlePayouts, submitted: 1, outcomes: { succeeded: 1 } };
        },
      },
      recurrences: { sweep: async () => ({ ...idleRecurrences, materialised }) },
      refunds: { sweep: async () => ({ looked: 0, answered: 0 }) },
    });
    const quiet = await runDueSweep(parts(0), 60_000);
    const busy = await runDueSweep(parts(2), 60_000);
    expect(sweeps).toEqual([0, 2, 2]);
    expect(quiet.payouts).toMatchObject({ submitted: 1, outcomes: { succeeded: 1 } });
    expect(busy.payouts).toMatchObject({ submitted: 2, outcomes: { succeeded: 2 } });
  });
});
