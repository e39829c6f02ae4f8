import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PayoutStatus } from '../../lib/payouts/model.js';
import { occurrenceKey } from '../../lib/recurrence/materialise.js';
import type { RecurrenceAuditEvent } from '../../lib/recurrence/model.js';
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

describe('pause and resume', () => {
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

  it('creates nothing when a pause lands between the tick reading the recurrence and its creating transaction', async () => {
    lagos('2026-04-06', '09:00');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ startDate: '2026-04-06', timeOfDay: '11:02', narration: 'pause before create' }),
      idempotencyKey: 'pause-before-create',
      actor: alice,
    });
    lagos('2026-04-06', '10:55');
    // Injected interleaving: the pause commits after the tick read the recurrence and its history, just before
    // the tick's creating transaction, which names the version the tick read.
    const engine = replaceMethod(h.recurrences.ctx.payouts, 'create', async (command) => {
      await h.recurrences.pause(recurrence.id, bob, 'raced');
      return h.recurrences.ctx.payouts.create(command);
    });
    const report = await new RecurrenceService({ ...h.recurrences.ctx, payouts: engine }).sweep();
    expect(report.conflicts).toBe(1);
    expect(report.materialised).toBe(0);
    expect(await payoutsOf(recurrence.id, '2026-04-06')).toEqual([]);
    expect((await h.recurrences.get(recurrence.id)).status).toBe(RecurrenceStatus.Paused);
  });

  it('cancels the payout a tick created when a pause lands right after the creating transaction', async () => {
    lagos('2026-04-07', '09:00');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ startDate: '2026-04-07', timeOfDay: '11:02', narration: 'raced pause' }),
      idempotencyKey: 'raced-pause',
      actor: alice,
    });
    lagos('2026-04-07', '10:55');
    // Injected interleaving (the real store, with a pause run at one chosen point): the pause runs once the
    // tick's creating transaction (payout, occurrence record, recurrence advanced) committed, before the tick
    // does anything else; it must find the payout in the history and stop it.
    const engine = replaceMethod(h.recurrences.ctx.payouts, 'create', async (command) => {
      const created = await h.recurrences.ctx.payouts.create(command);
      await h.recurrences.pause(recurrence.id, bob, 'raced');
      return created;
    });
    const racing = new RecurrenceService({ ...h.recurrences.ctx, payouts: engine });
    const report = await racing.sweep();
    expect(report.materialised).toBe(1);

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

/** The local date `days` after `date`. */
const dayAfter = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

const actionsOf = (audit: readonly RecurrenceAuditEvent[]) => audit.map((event) => event.action);

describe('commands that race a tick or follow a crashed one (recurring payouts review)', () => {
  it('cancels the payout of a tick that ran between a skip reading the occurrence and writing it, and audits the skip', async () => {
    lagos('2026-04-09', '09:00');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ startDate: '2026-04-09', timeOfDay: '11:02', narration: 'raced skip' }),
      idempotencyKey: 'raced-skip',
      actor: alice,
    });
    lagos('2026-04-09', '10:55');
    // Injected interleaving (the real store, with a tick run at one chosen point): the skip read no record of the
    // occurrence; the tick then creates its payout, records it and moves the pointer past it; then the skip writes.
    let raced = false;
    const store = replaceMethod(h.recurrenceStore, 'recordSkipped', async (record, expected) => {
      if (!raced) {
        raced = true;
        expect((await h.recurrences.sweep()).materialised).toBe(1);
      }
      return h.recurrenceStore.recordSkipped(record, expected);
    });
    const racing = new RecurrenceService({ ...h.recurrences.ctx, store });
    await racing.skip(recurrence.id, '2026-04-09', bob, 'paid by hand');
    expect(raced).toBe(true);

    lagos('2026-04-09', '11:02');
    await h.tick();
    await h.tick();
    const payouts = await payoutsOf(recurrence.id, '2026-04-09');
    expect(payouts.map((p) => p.status)).toEqual([PayoutStatus.Cancelled]);
    expect(payouts.flatMap((p) => ledgerEntriesOf(h.sandbox, p.id))).toHaveLength(0);
    expect(await h.recurrenceStore.getOccurrence(recurrence.id, '2026-04-09')).toMatchObject({
      state: OccurrenceState.Skipped,
      payoutId: payouts[0]?.id,
      reason: 'skipped by bob: paid by hand',
    });
    const { audit } = await h.recurrences.view(recurrence.id);
    expect(actionsOf(audit)).toEqual(['created', 'skipped']);
    expect(audit[1]).toMatchObject({
      actor: bob,
      reason: 'occurrence of 2026-04-09 skipped by bob: paid by hand',
    });
  });

  it('refuses a skip racing a tick once the payout it created is past cancelling, and leaves its record', async () => {
    lagos('2026-04-10', '09:00');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ startDate: '2026-04-10', timeOfDay: '11:02', narration: 'raced late skip' }),
      idempotencyKey: 'raced-late-skip',
      actor: alice,
    });
    lagos('2026-04-10', '11:03');
    // The tick that runs between the skip's read and its write materialises the occurrence late and the engine
    // pays it at once: nothing is left to cancel, so the skip is refused and the history keeps the payout.
    let raced = false;
    const store = replaceMethod(h.recurrenceStore, 'recordSkipped', async (record, expected) => {
      if (!raced) {
        raced = true;
        await h.tick();
      }
      return h.recurrenceStore.recordSkipped(record, expected);
    });
    const racing = new RecurrenceService({ ...h.recurrences.ctx, store });
    await expect(racing.skip(recurrence.id, '2026-04-10', bob)).rejects.toThrow(/cannot be skipped/);

    const [payout] = await payoutsOf(recurrence.id, '2026-04-10');
    expect(payout?.status).toBe(PayoutStatus.Succeeded);
    expect(await h.recurrenceStore.getOccurrence(recurrence.id, '2026-04-10')).toMatchObject({
      state: OccurrenceState.Materialised,
      payoutId: payout?.id,
    });
    expect(actionsOf((await h.recurrences.view(recurrence.id)).audit)).toEqual(['created']);
  });

  it('stops the payout of a tick that died right after creating it when the rule is paused', async () => {
    lagos('2026-04-11', '09:00');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ startDate: '2026-04-11', timeOfDay: '11:02', narration: 'crashed tick' }),
      idempotencyKey: 'crashed-tick',
      actor: alice,
    });
    lagos('2026-04-11', '10:55');
    // Injected fault (a process dying at a given point): the tick dies right after creating the payout.
    const engine = replaceMethod(h.recurrences.ctx.payouts, 'create', async (command) => {
      await h.recurrences.ctx.payouts.create(command);
      throw new Error('simulated crash after the payout was created');
    });
    const crashing = new RecurrenceService({ ...h.recurrences.ctx, payouts: engine });
    await expect(crashing.sweep()).rejects.toThrow(/simulated crash/);
    const [created] = await payoutsOf(recurrence.id, '2026-04-11');
    expect(created?.status).toBe(PayoutStatus.Scheduled);

    // The rule leaves the work queue: no tick comes back for the occurrence. The pause must find the payout.
    lagos('2026-04-11', '10:58');
    await h.recurrences.pause(recurrence.id, bob, 'supplier dispute');
    lagos('2026-04-11', '11:02');
    await h.tick();
    await h.tick();

    const payouts = await payoutsOf(recurrence.id, '2026-04-11');
    expect(payouts.map((p) => p.status)).toEqual([PayoutStatus.Cancelled]);
    expect(payouts.flatMap((p) => ledgerEntriesOf(h.sandbox, p.id))).toHaveLength(0);
    expect(await h.recurrenceStore.getOccurrence(recurrence.id, '2026-04-11')).toMatchObject({
      state: OccurrenceState.Held,
      payoutId: created?.id,
    });
    expect(actionsOf((await h.recurrences.view(recurrence.id)).audit)).toEqual(['created', 'paused']);
  });

  it('pays the payout of a tick that died right after creating it once, when the next tick finds it', async () => {
    lagos('2026-04-12', '09:00');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ startDate: '2026-04-12', timeOfDay: '11:02', narration: 'crashed tick resumed' }),
      idempotencyKey: 'crashed-tick-next',
      actor: alice,
    });
    lagos('2026-04-12', '10:55');
    // Injected fault, as above: the tick dies right after creating the payout.
    const engine = replaceMethod(h.recurrences.ctx.payouts, 'create', async (command) => {
      await h.recurrences.ctx.payouts.create(command);
      throw new Error('simulated crash after the payout was created');
    });
    await expect(new RecurrenceService({ ...h.recurrences.ctx, payouts: engine }).sweep()).rejects.toThrow(
      /crash/,
    );
    lagos('2026-04-12', '10:56');
    await Promise.all([h.tick(), h.tick()]);
    lagos('2026-04-12', '11:02');
    await h.tick();

    const payouts = await payoutsOf(recurrence.id, '2026-04-12');
    expect(payouts.map((p) => p.status)).toEqual([PayoutStatus.Succeeded]);
    expect(payouts.flatMap((p) => ledgerEntriesOf(h.sandbox, p.id))).toHaveLength(1);
    expect((await h.recurrences.get(recurrence.id)).nextLocalDate).toBe('2026-04-13');
  });

  for (const command of ['pause', 'cancel'] as const) {
    it(`${command} stops today's payout however many future dates were skipped (more than a tick's 50)`, async () => {
      const today = command === 'pause' ? '2026-04-14' : '2026-04-16';
      lagos(today, '09:00');
      const { recurrence } = await h.recurrences.create({
        request: dailyRule({ startDate: today, timeOfDay: '11:02', narration: `many skips, ${command}` }),
        idempotencyKey: `many-skips-${command}`,
        actor: alice,
      });
      for (let day = 1; day <= 51; day++) {
        await h.recurrences.skip(recurrence.id, dayAfter(today, day), bob, 'holiday');
      }
      lagos(today, '10:55');
      expect((await h.tick()).recurrences.materialised).toBe(1);

      lagos(today, '10:58');
      if (command === 'pause') await h.recurrences.pause(recurrence.id, bob);
      else await h.recurrences.cancel(recurrence.id, bob);
      lagos(today, '11:02');
      await h.tick();
      await h.tick();

      const payouts = await payoutsOf(recurrence.id, today);
      expect(payouts.map((p) => p.status)).toEqual([PayoutStatus.Cancelled]);
      expect(payouts.flatMap((p) => ledgerEntriesOf(h.sandbox, p.id))).toHaveLength(0);
      expect(await h.recurrenceStore.getOccurrence(recurrence.id, today)).toMatchObject({
        state: command === 'pause' ? OccurrenceState.Held : OccurrenceState.Skipped,
        payoutId: payouts[0]?.id,
      });
    });
  }

  // Last in this file: the clock (shared with the sandbox) moves on more than a year here.
  it('records every occurrence that fell in a pause longer than a year, each once, and resumes after them', async () => {
    lagos('2026-04-20', '09:00');
    const { recurrence } = await h.recurrences.create({
      request: dailyRule({ startDate: '2026-04-20', timeOfDay: '11:02', narration: 'long pause' }),
      idempotencyKey: 'long-pause',
      actor: alice,
    });
    await h.recurrences.pause(recurrence.id, bob, 'closed for a while');
    const resumedOn = dayAfter('2026-04-20', 400);
    lagos(resumedOn, '09:00');
    const resumed = await h.recurrences.resume(recurrence.id, bob);
    expect(resumed).toMatchObject({ status: RecurrenceStatus.Active, nextLocalDate: resumedOn });

    const entries: { localDate: string; state: string; reason?: string }[] = [];
    let before: string | undefined;
    do {
      const page = await h.recurrences.history(recurrence.id, { limit: 100, ...(before && { before }) });
      entries.push(...page.entries);
      before = page.before;
    } while (before);
    const fell = Array.from({ length: 400 }, (_, day) => dayAfter('2026-04-20', day));
    expect(entries.map((entry) => entry.localDate)).toEqual([...fell].reverse());
    expect(
      entries.every(
        (entry) =>
          entry.state === OccurrenceState.Skipped && entry.reason === 'fell while paused; resumed by bob',
      ),
    ).toBe(true);
    expect(actionsOf((await h.recurrences.view(recurrence.id)).audit)).toEqual([
      'created',
      'paused',
      'resumed',
    ]);
  });
});
