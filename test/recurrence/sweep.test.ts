import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runDueSweep } from '../../lib/jobs/scheduled.js';
import { PayoutStatus } from '../../lib/payouts/model.js';
import { type PayoutSweeper, payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import { RecurrenceStatus } from '../../lib/recurrence/model.js';
import { alice, bob, ledgerEntriesOf } from '../support/engine-harness.js';
import { dailyRule, type RecurrenceHarness, startRecurrenceHarness } from './support.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let h: RecurrenceHarness;
beforeAll(async () => {
  h = await startRecurrenceHarness({ maxLatenessMs: 6 * HOUR });
});
afterAll(async () => h.close());

/** Sets the clock to an instant, never backwards (the sandbox shares it). */
const at = (iso: string) => h.clock.set(iso);

async function historyOf(id: string) {
  return (await h.recurrences.view(id)).history;
}

describe('recurrence sweep', () => {
  // Each test starts with no active recurrence left over from the one before.
  afterEach(async () => {
    const { items } = await h.recurrences.list({ status: RecurrenceStatus.Active, limit: 100 });
    for (const r of items) await h.recurrences.cancel(r.id, alice);
  });

  it('materialises an occurrence only when it comes within the horizon, then pays it once at its time', async () => {
    at('2026-03-02T08:00:00.000Z');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ maxOccurrences: 2 }),
      idempotencyKey: 'daily-1',
      actor: alice,
    });
    expect(recurrence.nextOccurrenceAt).toBe('2026-03-02T09:00:00.000Z');

    expect((await h.tick()).recurrences.materialised).toBe(0);
    expect(await historyOf(recurrence.id)).toHaveLength(0);

    at('2026-03-02T08:55:00.000Z');
    expect((await h.tick()).recurrences.materialised).toBe(1);
    const [first] = await historyOf(recurrence.id);
    expect(first).toMatchObject({ localDate: '2026-03-02', payoutStatus: PayoutStatus.Scheduled });

    at('2026-03-02T09:00:00.000Z');
    await h.tick();
    const payout = await h.engine.get(first?.payoutId ?? '');
    expect(payout).toMatchObject({
      status: PayoutStatus.Succeeded,
      idempotencyKey: `${recurrence.id}:2026-03-02`,
      origin: 'schedule',
      sourceRef: recurrence.id,
    });
    expect(ledgerEntriesOf(h.sandbox, payout?.id ?? '')).toHaveLength(1);
  });

  it('does not pay an occurrence twice when ticks repeat or run concurrently', async () => {
    at('2026-03-03T08:00:00.000Z');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ startDate: '2026-03-03', narration: 'concurrent ticks' }),
      idempotencyKey: 'daily-concurrent',
      actor: alice,
    });
    at('2026-03-03T08:58:00.000Z');
    await Promise.all([h.recurrences.sweep(), h.recurrences.sweep(), h.recurrences.sweep()]);
    await h.recurrences.sweep();
    at('2026-03-03T09:00:00.000Z');
    await Promise.all([h.tick(), h.tick(), h.tick()]);
    await h.tick();

    const history = await historyOf(recurrence.id);
    expect(history).toHaveLength(1);
    const payouts = await h.listing.list({ status: PayoutStatus.Succeeded, limit: 100 });
    const ours = payouts.items.filter((p) => p.sourceRef === recurrence.id);
    expect(ours).toHaveLength(1);
    expect(ledgerEntriesOf(h.sandbox, ours[0]?.id ?? '')).toHaveLength(1);
    expect((await h.recurrences.get(recurrence.id)).nextLocalDate).toBe('2026-03-04');
  });

  it('after an outage pays what is still within the allowed lateness and marks older occurrences missed', async () => {
    at('2026-03-05T08:00:00.000Z');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ startDate: '2026-03-05', narration: 'outage' }),
      idempotencyKey: 'daily-outage',
      actor: alice,
    });
    // Nothing runs for three days; the sweeper comes back 2 hours after the 4th occurrence.
    at('2026-03-08T11:00:00.000Z');
    const { recurrences, engine } = await h.tick();
    expect(recurrences.late).toBe(4);
    expect(engine.missed).toBeGreaterThanOrEqual(3);

    const byDate = Object.fromEntries(
      (await historyOf(recurrence.id)).map((entry) => [entry.localDate, entry.payoutStatus]),
    );
    expect(byDate).toEqual({
      '2026-03-05': PayoutStatus.Missed,
      '2026-03-06': PayoutStatus.Missed,
      '2026-03-07': PayoutStatus.Missed,
      '2026-03-08': PayoutStatus.Succeeded,
    });
    expect(
      h.logger.entries.filter((e) => e.message === 'scheduled payout missed').length,
    ).toBeGreaterThanOrEqual(3);
    expect((await h.recurrences.get(recurrence.id)).nextLocalDate).toBe('2026-03-09');
  });

  it('pays a due occurrence in the same tick even when the engine looked before it was materialised', async () => {
    at('2026-03-12T08:00:00.000Z');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ startDate: '2026-03-12', narration: 'same tick', maxOccurrences: 1 }),
      idempotencyKey: 'daily-same-tick',
      actor: alice,
    });
    // The sweeps of one tick run at once; here the recurrences are held until the engine's first look is over.
    at('2026-03-12T09:30:00.000Z');
    let engineLooked!: () => void;
    const firstLook = new Promise<void>((resolve) => {
      engineLooked = resolve;
    });
    const engine = {
      sweep: async (options?: Parameters<PayoutSweeper['sweep']>[0]) => {
        const report = await payoutSweeper(h.engine).sweep(options);
        engineLooked();
        return report;
      },
    };
    const recurrences = {
      sweep: async (options?: Parameters<typeof h.recurrences.sweep>[0]) => {
        await firstLook;
        return h.recurrences.sweep(options);
      },
    };
    const report = await runDueSweep({ engine, recurrences, refunds: h.refunds }, 60_000);

    expect(report.recurrences.late).toBe(1);
    expect(report.payouts.submitted).toBe(1);
    expect(await historyOf(recurrence.id)).toMatchObject([
      { localDate: '2026-03-12', payoutStatus: PayoutStatus.Succeeded },
    ]);
  });

  it('never materialises a skipped occurrence and cancels one already materialised', async () => {
    at('2026-03-10T08:00:00.000Z');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ startDate: '2026-03-10', narration: 'skips', maxOccurrences: 3 }),
      idempotencyKey: 'daily-skip',
      actor: alice,
    });
    await h.recurrences.skip(recurrence.id, '2026-03-11', bob, 'public holiday');
    at('2026-03-10T08:55:00.000Z');
    await h.tick();
    await h.recurrences.skip(recurrence.id, '2026-03-10', bob); // already a scheduled payout: cancelled
    for (const day of ['2026-03-10', '2026-03-11', '2026-03-12']) {
      at(`${day}T08:55:00.000Z`);
      await h.tick();
      at(`${day}T09:01:00.000Z`);
      await h.tick();
    }
    const byDate = Object.fromEntries(
      (await historyOf(recurrence.id)).map((entry) => [entry.localDate, [entry.state, entry.payoutStatus]]),
    );
    expect(byDate).toEqual({
      '2026-03-10': ['skipped', PayoutStatus.Cancelled],
      '2026-03-11': ['skipped', undefined],
      '2026-03-12': ['materialised', PayoutStatus.Succeeded],
    });
    expect((await h.recurrences.get(recurrence.id)).status).toBe(RecurrenceStatus.Completed);
  });

  it('records occurrences that fell during a pause as skipped and resumes with the next one', async () => {
    at('2026-03-14T08:00:00.000Z');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ startDate: '2026-03-14', narration: 'pause' }),
      idempotencyKey: 'daily-pause',
      actor: alice,
    });
    await h.recurrences.pause(recurrence.id, bob, 'supplier dispute');
    at('2026-03-16T08:00:00.000Z');
    expect((await h.tick()).recurrences.materialised).toBe(0);
    const resumed = await h.recurrences.resume(recurrence.id, bob);
    expect(resumed).toMatchObject({ status: RecurrenceStatus.Active, nextLocalDate: '2026-03-16' });
    at('2026-03-16T09:00:00.000Z');
    await h.tick();
    const byDate = Object.fromEntries(
      (await historyOf(recurrence.id)).map((entry) => [entry.localDate, [entry.state, entry.payoutStatus]]),
    );
    expect(byDate).toEqual({
      '2026-03-14': ['skipped', undefined],
      '2026-03-15': ['skipped', undefined],
      '2026-03-16': ['materialised', PayoutStatus.Succeeded],
    });
  });

  it('starts no new recurrence once the time budget is spent and leaves it to the next tick', async () => {
    at('2026-03-21T08:00:00.000Z');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ startDate: '2026-03-21', narration: 'budget', maxOccurrences: 1 }),
      idempotencyKey: 'budget',
      actor: alice,
    });
    at('2026-03-21T08:55:00.000Z');
    const report = await h.recurrences.sweep({ stopStartingAt: Date.now() - 1 });
    expect(report).toMatchObject({ materialised: 0, leftOver: true });
    expect((await h.recurrences.sweep()).materialised).toBe(1);
    expect(await historyOf(recurrence.id)).toHaveLength(1);
  });
});

// A table of its own: the 200 rules not yet due would otherwise be cancelled one by one after the test.
describe('recurrence sweep over many rules not yet due', () => {
  let own: RecurrenceHarness;
  beforeAll(async () => {
    own = await startRecurrenceHarness({ maxLatenessMs: 6 * HOUR });
  });
  afterAll(async () => own.close());

  it('reads only the due recurrences, however many are not yet due', async () => {
    own.clock.set('2026-03-20T08:00:00.000Z');
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        own.recurrences.create({
          request: dailyRule({ startDate: '2026-06-01', narration: `later ${i}` }),
          idempotencyKey: `later-${i}`,
          actor: alice,
        }),
      ),
    );
    for (const i of [1, 2]) {
      await own.recurrences.create({
        request: dailyRule({ startDate: '2026-03-20', narration: `due ${i}`, maxOccurrences: 1 }),
        idempotencyKey: `due-${i}`,
        actor: alice,
      });
    }
    own.clock.set('2026-03-20T08:55:00.000Z');
    const report = await own.recurrences.sweep();
    expect(report).toMatchObject({ read: 2, materialised: 2, completed: 2, leftOver: false });
  });
});
