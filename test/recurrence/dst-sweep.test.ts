import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PayoutStatus } from '../../lib/payouts/model.js';
import { alice, ledgerEntriesOf } from '../support/engine-harness.js';
import { dailyRule, type RecurrenceHarness, startRecurrenceHarness } from './support.js';

let h: RecurrenceHarness;
beforeAll(async () => {
  h = await startRecurrenceHarness();
});
afterAll(async () => h.close());

const MINUTE = 60_000;

/** Ticks every five minutes through [from, to], as the every-minute schedule would (coarser, to stay quick). */
async function tickThrough(from: string, to: string): Promise<void> {
  for (let t = Date.parse(from); t <= Date.parse(to); t += 5 * MINUTE) {
    h.clock.set(new Date(t));
    await h.tick();
  }
}

describe('a daily recurring payout across a daylight-saving change, through the sweeper', () => {
  // A volume test: it asserts counts, never time; the whole suite shares one DynamoDB Local, where its writes
  // have taken up to 30 s when heavy files run beside it (2 s alone).
  it('pays every local day once, at the local time (moved forward where it does not exist), never twice', async () => {
    h.clock.set('2026-03-05T12:00:00.000Z');
    const { recurrence } = await h.recurrences.create({
      // 02:30 in New York does not exist on 8 March 2026 (clocks jump from 02:00 to 03:00).
      request: dailyRule({
        startDate: '2026-03-06',
        timeOfDay: '02:30',
        timeZone: 'America/New_York',
        maxOccurrences: 5,
      }),
      idempotencyKey: 'dst-daily',
      actor: alice,
    });
    for (const day of ['06', '07', '08', '09', '10']) {
      await tickThrough(`2026-03-${day}T06:00:00.000Z`, `2026-03-${day}T08:00:00.000Z`);
    }

    const history = [...(await h.recurrences.view(recurrence.id)).history].sort((a, b) =>
      a.localDate < b.localDate ? -1 : 1,
    );
    expect(history.map((entry) => entry.localDate)).toEqual([
      '2026-03-06',
      '2026-03-07',
      '2026-03-08',
      '2026-03-09',
      '2026-03-10',
    ]);
    const expectedUtc = [
      '2026-03-06T07:30:00.000Z', // 02:30 EST (UTC-5)
      '2026-03-07T07:30:00.000Z',
      '2026-03-08T07:30:00.000Z', // 02:30 does not exist: 03:30 EDT (UTC-4)
      '2026-03-09T06:30:00.000Z', // 02:30 EDT
      '2026-03-10T06:30:00.000Z',
    ];
    for (const [i, entry] of history.entries()) {
      const payout = await h.engine.get(entry.payoutId ?? '');
      expect(payout?.status, entry.localDate).toBe(PayoutStatus.Succeeded);
      expect(payout?.scheduleAt).toBe(expectedUtc[i]);
      const ledger = ledgerEntriesOf(h.sandbox, payout?.id ?? '');
      expect(ledger).toHaveLength(1);
      // Paid on the first tick at or after its time.
      const paidAt = Date.parse(ledger[0]?.createdAt ?? '');
      expect(paidAt).toBeGreaterThanOrEqual(Date.parse(expectedUtc[i] ?? ''));
      expect(paidAt).toBeLessThan(Date.parse(expectedUtc[i] ?? '') + 5 * MINUTE);
    }
    expect((await h.recurrences.get(recurrence.id)).status).toBe('completed');
  }, 90_000);
});
