import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PayoutStatus } from '../../lib/payouts/model.js';
import { occurrenceKey } from '../../lib/recurrence/materialise.js';
import { OccurrenceState, RecurrenceStatus } from '../../lib/recurrence/model.js';
import { RecurrenceService } from '../../lib/recurrence/recurrence-service.js';
import { alice, bob, ledgerEntriesOf } from '../support/engine-harness.js';
import { replaceMethod } from '../support/replace-method.js';
import { dailyRule, type RecurrenceHarness, startRecurrenceHarness } from './support.js';

let h: RecurrenceHarness;
beforeAll(async () => {
  h = await startRecurrenceHarness();
});
afterAll(async () => h.close());
afterEach(async () => {
  for (const status of [RecurrenceStatus.Active, RecurrenceStatus.Paused]) {
    const { items } = await h.recurrences.list({ status, limit: 100 });
    for (const r of items) await h.recurrences.cancel(r.id, alice);
  }
});

/** Lagos local time (UTC+01:00) on a day, as an instant; the clock never goes backwards (the sandbox shares it). */
const lagos = (day: string, time: string) => h.clock.set(new Date(`${day}T${time}:00+01:00`).toISOString());

/** Every payout ever created for one occurrence, whatever its generation, oldest first (by key). */
async function payoutsOf(recurrenceId: string, localDate: string) {
  const { items } = await h.listing.list({ limit: 100 });
  const keys = [1, 2, 3, 4].map((generation) => occurrenceKey(recurrenceId, localDate, generation));
  return keys.flatMap((key) => items.filter((p) => p.idempotencyKey === key));
}

describe('pause and resume (issue 14, finding 4)', () => {
  it('pays the 11:02 occurrence of a daily payout paused at 10:59 and resumed at 11:01, once', async () => {
    lagos('2026-04-01', '09:00');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ startDate: '2026-04-01', timeOfDay: '11:02', narration: 'paused 10:59' }),
      idempotencyKey: 'reported-sequence',
      actor: alice,
    });
    lagos('2026-04-01', '10:55');
    expect((await h.tick()).recurrences.materialised).toBe(1);
    const [first] = await payoutsOf(recurrence.id, '2026-04-01');
    expect(first?.status).toBe(PayoutStatus.Scheduled);

    lagos('2026-04-01', '10:59');
    const paused = await h.recurrences.pause(recurrence.id, bob, 'checking the account');
    expect(paused).toMatchObject({ status: RecurrenceStatus.Paused, nextLocalDate: '2026-04-01' });
    expect((await h.engine.get(first?.id ?? ''))?.status).toBe(PayoutStatus.Cancelled);
    expect(await h.recurrenceStore.getOccurrence(recurrence.id, '2026-04-01')).toMatchObject({
      state: OccurrenceState.Held,
      payoutId: first?.id,
    });
    await h.tick(); // nothing is materialised while paused

    lagos('2026-04-01', '11:01');
    const resumed = await h.recurrences.resume(recurrence.id, bob);
    expect(resumed).toMatchObject({ status: RecurrenceStatus.Active, nextLocalDate: '2026-04-01' });
    await h.tick();
    lagos('2026-04-01', '11:02');
    await h.tick();
    await h.tick();

    const payouts = await payoutsOf(recurrence.id, '2026-04-01');
    expect(payouts.map((p) => [p.idempotencyKey, p.status])).toEqual([
      [`${recurrence.id}:2026-04-01`, PayoutStatus.Cancelled],
      [`${recurrence.id}:2026-04-01:2`, PayoutStatus.Succeeded],
    ]);
    expect(payouts.flatMap((p) => ledgerEntriesOf(h.sandbox, p.id))).toHaveLength(1);
    const view = await h.recurrences.view(recurrence.id);
    expect(view.history).toMatchObject([
      { localDate: '2026-04-01', state: 'materialised', generation: 2, payoutStatus: PayoutStatus.Succeeded },
    ]);
    expect(view.recurrence.nextLocalDate).toBe('2026-04-02');
    expect(view.audit.map((event) => event.action)).toEqual(['created', 'paused', 'resumed']);
  });

  it('records the occurrence as skipped, with the reason, when the resume comes after its time', async () => {
    lagos('2026-04-03', '09:00');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ startDate: '2026-04-03', timeOfDay: '11:02', narration: 'resumed late' }),
      idempotencyKey: 'resumed-after-its-time',
      actor: alice,
    });
    lagos('2026-04-03', '10:55');
    await h.tick();
    lagos('2026-04-03', '10:59');
    await h.recurrences.pause(recurrence.id, bob);
    lagos('2026-04-03', '11:03');
    await h.tick();
    const resumed = await h.recurrences.resume(recurrence.id, bob);
    expect(resumed.nextLocalDate).toBe('2026-04-04');
    await h.tick();

    const payouts = await payoutsOf(recurrence.id, '2026-04-03');
    expect(payouts.map((p) => p.status)).toEqual([PayoutStatus.Cancelled]);
    expect(payouts.flatMap((p) => ledgerEntriesOf(h.sandbox, p.id))).toHaveLength(0);
    expect(await h.recurrenceStore.getOccurrence(recurrence.id, '2026-04-03')).toMatchObject({
      state: OccurrenceState.Skipped,
      reason: 'fell while paused; resumed by bob',
    });
  });

  it('creates one live payout for the occurrence whatever the ticks do after a pause, resume, pause, resume', async () => {
    lagos('2026-04-05', '09:00');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ startDate: '2026-04-05', timeOfDay: '11:02', narration: 'twice paused' }),
      idempotencyKey: 'twice-paused',
      actor: alice,
    });
    lagos('2026-04-05', '10:55');
    await Promise.all([h.recurrences.sweep(), h.recurrences.sweep()]);
    lagos('2026-04-05', '10:56');
    await h.recurrences.pause(recurrence.id, bob);
    lagos('2026-04-05', '10:57');
    await h.recurrences.resume(recurrence.id, bob);
    await Promise.all([h.recurrences.sweep(), h.recurrences.sweep(), h.recurrences.sweep()]);
    lagos('2026-04-05', '10:58');
    await h.recurrences.pause(recurrence.id, bob);
    lagos('2026-04-05', '10:59');
    await h.recurrences.resume(recurrence.id, bob);
    await Promise.all([h.recurrences.sweep(), h.recurrences.sweep(), h.recurrences.sweep()]);
    lagos('2026-04-05', '11:02');
    await Promise.all([h.tick(), h.tick()]);

    const payouts = await payoutsOf(recurrence.id, '2026-04-05');
    expect(payouts.map((p) => p.status)).toEqual([
      PayoutStatus.Cancelled,
      PayoutStatus.Cancelled,
      PayoutStatus.Succeeded,
    ]);
    expect(payouts.flatMap((p) => ledgerEntriesOf(h.sandbox, p.id))).toHaveLength(1);
  });

  it('cancels the payout a tick created when a pause won the race for the recurrence', async () => {
    lagos('2026-04-07', '09:00');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ startDate: '2026-04-07', timeOfDay: '11:02', narration: 'raced pause' }),
      idempotencyKey: 'raced-pause',
      actor: alice,
    });
    lagos('2026-04-07', '10:55');
    // Injected interleaving (the real store, with a pause run at one chosen point): the pause reads the history
    // after the tick created the payout but before the tick recorded it, so it finds nothing to cancel; its
    // write then beats the tick's advance of the pointer.
    const store = replaceMethod(h.recurrenceStore, 'recordMaterialised', async (record) => {
      await h.recurrences.pause(recurrence.id, bob, 'raced');
      return h.recurrenceStore.recordMaterialised(record);
    });
    const racing = new RecurrenceService({ ...h.recurrences.ctx, store });
    const report = await racing.sweep();
    expect(report.conflicts).toBe(1);

    const [payout] = await payoutsOf(recurrence.id, '2026-04-07');
    expect(payout?.status).toBe(PayoutStatus.Cancelled);
    expect(await h.recurrenceStore.getOccurrence(recurrence.id, '2026-04-07')).toMatchObject({
      state: OccurrenceState.Held,
    });
    lagos('2026-04-07', '11:00');
    await h.recurrences.resume(recurrence.id, bob);
    await h.tick();
    lagos('2026-04-07', '11:02');
    await h.tick();
    const payouts = await payoutsOf(recurrence.id, '2026-04-07');
    expect(payouts.map((p) => p.status)).toEqual([PayoutStatus.Cancelled, PayoutStatus.Succeeded]);
  });
});
