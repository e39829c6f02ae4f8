import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiHandler } from '../../lib/api/index.js';
import { apiContextFrom } from '../../lib/api/services-from-runtime.js';
import { runDueSweep } from '../../lib/jobs/scheduled.js';
import { servedBy } from '../../lib/local/function-attribution.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import { RecurrenceService } from '../../lib/recurrence/recurrence-service.js';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { recurrencesOf, refundsOf } from '../../lib/runtime/services.js';
import { checkedAgainstContract } from '../api/support/contract.js';
import { type ApiHarness, asDeployed, bankTransfer, call, startApiHarness } from '../api/support/harness.js';
import { replaceMethod } from '../support/replace-method.js';

let h: ApiHarness;
beforeAll(async () => {
  h = await startApiHarness();
});
afterAll(async () => h.close());

/** Today and tomorrow in Lagos, so a rule starting today is valid whatever time the test runs. */
const lagosDay = (offsetDays: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Lagos' }).format(
    new Date(Date.now() + offsetDays * 86_400_000),
  );

const rule = (overrides: Record<string, unknown> = {}) => ({
  ...bankTransfer({ narration: 'weekly wages' }),
  interval: 'weekly',
  startDate: lagosDay(2),
  timeOfDay: '09:00',
  ...overrides,
});

describe('POST /payouts with scheduleAt (one-off scheduled payouts)', () => {
  it('creates a scheduled payout that can be cancelled until its time', async () => {
    const scheduleAt = new Date(Date.now() + 3_600_000).toISOString();
    const created = await call(h.api, {
      method: 'POST',
      path: '/payouts',
      headers: { 'Idempotency-Key': 'one-off-1' },
      body: bankTransfer({ scheduleAt }),
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'scheduled', scheduleAt });
    const cancelled = await call(h.api, {
      method: 'POST',
      path: `/payouts/${created.body.id}/cancel`,
      body: {},
    });
    expect(cancelled.body.status).toBe('cancelled');
  });
});

describe('recurring payouts API', () => {
  it('creates a recurring payout in Lagos time by default and shows its next occurrences', async () => {
    const created = await call(h.api, {
      method: 'POST',
      path: '/recurring-payouts',
      headers: { 'Idempotency-Key': 'wages-1' },
      body: rule(),
    });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`/recurring-payouts/${created.body.id}`);
    expect(created.body).toMatchObject({
      status: 'active',
      type: 'bank_transfer',
      amount: 250_000,
      schedule: { interval: 'weekly', every: 1, timeOfDay: '09:00', timeZone: 'Africa/Lagos' },
      nextOccurrence: { localDate: lagosDay(2), at: `${lagosDay(2)}T08:00:00.000Z` },
      history: [],
    });
    expect(created.body.upcoming).toHaveLength(5);
    expect(created.body.upcoming[1]).toMatchObject({ localDate: lagosDay(9), skipped: false });

    const replay = await call(h.api, {
      method: 'POST',
      path: '/recurring-payouts',
      headers: { 'Idempotency-Key': 'wages-1' },
      body: rule(),
    });
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(created.body.id);

    const conflict = await call(h.api, {
      method: 'POST',
      path: '/recurring-payouts',
      headers: { 'Idempotency-Key': 'wages-1' },
      body: rule({ amount: 1 }),
    });
    expect(conflict.status).toBe(409);

    const listed = await call(h.api, { method: 'GET', path: '/recurring-payouts', query: 'status=active' });
    expect(listed.body.items.map((r: { id: string }) => r.id)).toContain(created.body.id);
  });

  it('shows the newest 50 history entries and pages through all of them, newest first, each once', async () => {
    const created = await call(h.api, {
      method: 'POST',
      path: '/recurring-payouts',
      headers: { 'Idempotency-Key': 'history-1' },
      body: rule(),
    });
    // 53 occurrences already decided (recorded as the sweeper records a passed-over one), a week apart.
    const store = recurrencesOf(h.runtime).ctx.store;
    const dates = Array.from({ length: 53 }, (_, index) =>
      new Date(Date.UTC(2025, 0, 6 + 7 * index)).toISOString().slice(0, 10),
    );
    for (const [index, localDate] of dates.entries()) {
      await store.recordSkipped({
        recurrenceId: created.body.id,
        localDate,
        index,
        at: `${localDate}T08:00:00.000Z`,
        state: 'skipped',
        reason: 'history test',
        recordedAt: `${localDate}T08:00:00.000Z`,
      });
    }
    const newestFirst = [...dates].reverse();
    const view = await call(h.api, { method: 'GET', path: `/recurring-payouts/${created.body.id}` });
    expect(view.body.history.map((entry: { localDate: string }) => entry.localDate)).toEqual(
      newestFirst.slice(0, 50),
    );
    const rest = await call(h.api, {
      method: 'GET',
      path: `/recurring-payouts/${created.body.id}/history`,
      query: `cursor=${view.body.historyNextCursor}`,
    });
    expect(rest.body.items.map((entry: { localDate: string }) => entry.localDate)).toEqual(
      newestFirst.slice(50),
    );
    expect(rest.body.nextCursor).toBeUndefined();
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await call(h.api, {
        method: 'GET',
        path: `/recurring-payouts/${created.body.id}/history`,
        query: `limit=20${cursor ? `&cursor=${cursor}` : ''}`,
      });
      expect(page.status).toBe(200);
      paged.push(...page.body.items.map((entry: { localDate: string }) => entry.localDate));
      cursor = page.body.nextCursor;
    } while (cursor && paged.length < 100);
    expect(paged).toEqual(newestFirst);

    const unknown = await call(h.api, {
      method: 'GET',
      path: '/recurring-payouts/01ARZ3NDEKTSV4RRFFQ69G5FAV/history',
    });
    expect(unknown.status).toBe(404);
    for (const query of ['limit=0', 'cursor=bogus', 'cursor=eyJiZWZvcmUiOiIyMDI2LTEzLTQ1In0']) {
      const bad = await call(h.api, {
        method: 'GET',
        path: `/recurring-payouts/${created.body.id}/history`,
        query,
      });
      expect(bad.status, query).toBe(400);
    }
  });

  it('skips a named occurrence, pauses, resumes and cancels', async () => {
    const { body } = await call(h.api, {
      method: 'POST',
      path: '/recurring-payouts',
      headers: { 'Idempotency-Key': 'wages-2' },
      body: rule({ interval: 'daily', timeZone: 'America/New_York' }),
    });
    const id = body.id;
    const skipped = await call(h.api, {
      method: 'POST',
      path: `/recurring-payouts/${id}/occurrences/${lagosDay(3)}/skip`,
      body: { reason: 'public holiday' },
    });
    expect(skipped.status).toBe(200);
    expect(skipped.body.upcoming[1]).toMatchObject({ localDate: lagosDay(3), skipped: true });
    expect(skipped.body.history[0]).toMatchObject({ localDate: lagosDay(3), state: 'skipped' });

    const notAnOccurrence = await call(h.api, {
      method: 'POST',
      path: `/recurring-payouts/${id}/occurrences/${lagosDay(-30)}/skip`,
    });
    expect(notAnOccurrence.status).toBe(400);

    expect(
      (
        await call(h.api, {
          method: 'POST',
          path: `/recurring-payouts/${id}/pause`,
          body: { reason: 'dispute' },
        })
      ).body.status,
    ).toBe('paused');
    expect(
      (
        await call(h.api, {
          method: 'POST',
          path: `/recurring-payouts/${id}/pause`,
          body: { reason: 'again' },
        })
      ).status,
    ).toBe(409);
    expect((await call(h.api, { method: 'POST', path: `/recurring-payouts/${id}/resume` })).body.status).toBe(
      'active',
    );
    expect((await call(h.api, { method: 'POST', path: `/recurring-payouts/${id}/cancel` })).body.status).toBe(
      'cancelled',
    );
    const final = (await call(h.api, { method: 'GET', path: `/recurring-payouts/${id}` })).body;
    expect(final.upcoming).toEqual([]);
    expect(final.audit.map((event: { action: string }) => event.action)).toEqual([
      'created',
      'skipped',
      'paused',
      'resumed',
      'cancelled',
    ]);
    expect(final.audit[1].reason).toMatch(/public holiday/);
    expect(final.audit[2].reason).toBe('dispute');
    expect(final.audit.every((event: { actor: { id: string } }) => event.actor.id === 'local-operator')).toBe(
      true,
    );
    // Every one of these commands took effect, and its event says so.
    expect(final.audit.map((event: { committed: boolean }) => event.committed)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
  });

  it('refuses invalid rules with one problem entry per field', async () => {
    const invalid = await call(h.api, {
      method: 'POST',
      path: '/recurring-payouts',
      headers: { 'Idempotency-Key': 'bad-1' },
      body: rule({
        interval: 'yearly',
        startDate: '2026-02-30',
        timeOfDay: '24:00',
        timeZone: 'Mars/Olympus',
      }),
    });
    expect(invalid.status).toBe(400);
    expect(invalid.headers['content-type']).toBe('application/problem+json');
    const paths = invalid.body.errors.map((e: { path: string }) => e.path).sort();
    expect(paths).toEqual(['interval', 'startDate', 'timeOfDay', 'timeZone']);

    const ended = await call(h.api, {
      method: 'POST',
      path: '/recurring-payouts',
      headers: { 'Idempotency-Key': 'bad-2' },
      body: rule({ startDate: '2020-01-01', endDate: '2020-02-01' }),
    });
    expect(ended.status).toBe(400);
    expect(ended.body.errors[0].path).toBe('startDate');
    expect((await call(h.api, { method: 'GET', path: '/recurring-payouts/01NOPE' })).status).toBe(404);
  });

  it('pays a due occurrence through the sweep handler path, once', async () => {
    // A rule whose first occurrence is a whole minute in Lagos within the sweep horizon, and at least a minute
    // ahead (the minute after next): with the next one, a test run in a minute's last second saw it fall due
    // during the sweep and be paid (`succeeded`) before the view was read.
    const soon = new Date(Date.now() + 120_000);
    const local = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Africa/Lagos',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(soon);
    const { body } = await call(h.api, {
      method: 'POST',
      path: '/recurring-payouts',
      headers: { 'Idempotency-Key': 'soon-1' },
      body: rule({
        interval: 'daily',
        startDate: new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Lagos' }).format(soon),
        timeOfDay: local,
        maxOccurrences: 1,
      }),
    });
    const parts = {
      engine: payoutSweeper(payoutEngineOf(h.runtime)),
      recurrences: recurrencesOf(h.runtime),
      refunds: refundsOf(h.runtime),
    };
    const [first, second] = await servedBy('sweep-due-payouts', () =>
      Promise.all([runDueSweep(parts, 60_000), runDueSweep(parts, 60_000)]),
    );
    expect(first.recurrences.materialised + second.recurrences.materialised).toBeGreaterThanOrEqual(1);
    const view = await call(h.api, { method: 'GET', path: `/recurring-payouts/${body.id}` });
    expect(view.body.status).toBe('completed');
    expect(view.body.history).toHaveLength(1);
    expect(view.body.history[0]).toMatchObject({ state: 'materialised', payoutStatus: 'scheduled' });
  });
});

describe('a command that did not take effect, in the API', () => {
  /**
   * The ops API over the real runtime, but with a concurrent writer landing between each command's read of the rule
   * and its write: a real conditional write on DynamoDB Local (a version step, as a tick's materialisation makes),
   * so every try of the command's own write fails its version condition and the command answers 409 after its
   * retries (as in test/recurrence/command-contention.test.ts). Only the route under test goes through it.
   */
  function apiWhereCommandsAlwaysLose() {
    const recurrences = recurrencesOf(h.runtime);
    const { store } = recurrences.ctx;
    const losing = replaceMethod(store, 'replace', async (before, after, audit) => {
      if (audit) {
        const current = await store.get(before.id);
        if (current) await store.replace(current, { ...current, version: current.version + 1 });
      }
      return store.replace(before, after, audit);
    });
    return checkedAgainstContract(
      asDeployed(
        createApiHandler({
          ...apiContextFrom(h.runtime),
          recurrences: new RecurrenceService({ ...recurrences.ctx, store: losing }),
        }),
      ),
    );
  }

  it('shows its event `committed: false`, and the same command sent again `committed: true`', async () => {
    const { body: created } = await call(h.api, {
      method: 'POST',
      path: '/recurring-payouts',
      headers: { 'Idempotency-Key': 'wages-not-committed' },
      body: rule({ interval: 'daily' }),
    });
    const skipPath = `/recurring-payouts/${created.id}/occurrences/${lagosDay(4)}/skip`;

    const lost = await call(apiWhereCommandsAlwaysLose(), {
      method: 'POST',
      path: skipPath,
      body: { reason: 'public holiday' },
    });
    expect(lost.status).toBe(409);
    expect(lost.body.type).toBe('urn:payout-automation:problem:concurrent-modification');

    // The skip recorded the occurrence before it lost; the rule is as it was, and its event says the command did
    // not take effect by a field, not only by the wording of its reason.
    const afterLoss = (await call(h.api, { method: 'GET', path: `/recurring-payouts/${created.id}` })).body;
    expect(afterLoss.skippedDates).toEqual([]);
    expect(afterLoss.history[0]).toMatchObject({ localDate: lagosDay(4), state: 'skipped' });
    expect(afterLoss.audit).toEqual([
      expect.objectContaining({ action: 'created', committed: true }),
      expect.objectContaining({
        action: 'skipped',
        actor: expect.objectContaining({ id: 'local-operator' }),
        sequence: created.audit[0].sequence,
        reason: expect.stringMatching(/^not committed .*public holiday$/),
        committed: false,
      }),
    ]);

    // Sent again without contention, it finds the occurrence skipped and takes effect: a new event, committed. The
    // first invocation's event stays, still saying that invocation did not take effect.
    const again = await call(h.api, { method: 'POST', path: skipPath, body: { reason: 'public holiday' } });
    expect(again.status).toBe(200);
    expect(again.body.skippedDates).toEqual([lagosDay(4)]);
    expect(
      again.body.audit.map((event: { action: string; committed: boolean }) => [
        event.action,
        event.committed,
      ]),
    ).toEqual([
      ['created', true],
      ['skipped', false],
      ['skipped', true],
    ]);
  });
});
