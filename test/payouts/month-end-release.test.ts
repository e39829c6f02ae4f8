import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELEASES_IN_FLIGHT } from '../../lib/payouts/engine/sweep.js';
import { PayoutStatus } from '../../lib/payouts/model.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import type { SubmissionQueue, SubmissionRequest } from '../../lib/payouts/queue/submission-queue.js';
import { forEachAtOnce } from '../../lib/shared/at-once.js';
import { bankTransfer, command, type EngineHarness, startEngineHarness } from '../support/engine-harness.js';

/**
 * A month-end in small: 600 payouts scheduled for one instant in six pages of 100, on a table of their own so every
 * count is exact (the benchmark `BENCH_ONLY=month-end` releases and pays 100,000). The tests assert counts, never time; each tick's writes take seconds on DynamoDB Local, so each test has
 * the time of a volume test.
 */
const MONTH_END = 600;
const PAGE = 100;
const VOLUME_TEST_MS = 120_000;

let h: EngineHarness;
let dueAt: string;
beforeAll(async () => {
  h = await startEngineHarness({ maxLatenessMs: 60 * 60_000 });
  dueAt = new Date(h.clock.now().getTime() + 60 * 60_000).toISOString();
  const indexes = Array.from({ length: MONTH_END }, (_, index) => index);
  await forEachAtOnce(indexes, 16, (index) =>
    h.engine.create(command(bankTransfer(10_000 + index, { scheduleAt: dueAt }), `month-end-${index}`)),
  );
  h.clock.set(dueAt);
}, 300_000);
afterAll(async () => h.close());

/** Records each enqueue with its size and how many payouts were still waiting to be released when it came. */
class RecordingQueue implements SubmissionQueue {
  readonly requests: SubmissionRequest[] = [];
  readonly sizes: number[] = [];
  readonly stillScheduledAtEachEnqueue: number[] = [];
  async enqueue(requests: readonly SubmissionRequest[]): Promise<void> {
    this.stillScheduledAtEachEnqueue.push(await h.store.countByStatus(PayoutStatus.Scheduled, MONTH_END));
    this.sizes.push(requests.length);
    this.requests.push(...requests);
  }
}

describe('a month-end release', () => {
  it(
    'hands the first released payouts to the queue after one round of writes, not a whole page',
    async () => {
      const queue = new RecordingQueue();
      // The deadline passes as soon as the first round is released: the clock the tick reads it on says so.
      const report = await payoutSweeper(h.engine).dispatch(queue, {
        pageSize: PAGE,
        stopStartingAt: 1,
        now: () => 2,
      });

      // What a tick releases before its first enqueue is one round of conditional writes, not a page.
      expect(report.released).toBe(RELEASES_IN_FLIGHT);
      expect(queue.sizes).toEqual([RELEASES_IN_FLIGHT]);
      expect(queue.stillScheduledAtEachEnqueue[0]).toBe(MONTH_END - RELEASES_IN_FLIGHT);
      expect(report.leftOver).toBe(true);
      const statuses = await Promise.all(
        queue.requests.map(async (r) => (await h.engine.get(r.payoutId))?.status),
      );
      expect(statuses.every((status) => status === PayoutStatus.Pending)).toBe(true);
    },
    VOLUME_TEST_MS,
  );

  it(
    'starts enqueueing in the first tick while most of the month-end is still to be released',
    async () => {
      const queue = new RecordingQueue();

      const report = await payoutSweeper(h.engine).dispatch(queue, { pageSize: PAGE });

      expect(report.released).toBe(MONTH_END - RELEASES_IN_FLIGHT);
      // First what the tick before released (still queued), then each round as it is released: one round of
      // writes, then a page each, so the sends did not wait for the whole release.
      expect(queue.sizes[0]).toBe(RELEASES_IN_FLIGHT);
      expect(queue.stillScheduledAtEachEnqueue[0]).toBe(MONTH_END - RELEASES_IN_FLIGHT);
      expect(queue.stillScheduledAtEachEnqueue[1]).toBe(MONTH_END - 2 * RELEASES_IN_FLIGHT);
      expect(queue.stillScheduledAtEachEnqueue[2]).toBe(MONTH_END - 2 * RELEASES_IN_FLIGHT - PAGE);
      // Every payout is enqueued once, those released by the tick before included.
      expect(report.enqueued).toBe(MONTH_END);
      expect(new Set(queue.requests.map((request) => request.payoutId)).size).toBe(MONTH_END);
    },
    VOLUME_TEST_MS,
  );

  it(
    "releases only what is left of the tick's maximum once the payouts still queued are counted",
    async () => {
      const later = new Date(h.clock.now().getTime() + 60_000).toISOString();
      const indexes = Array.from({ length: 100 }, (_, index) => index);
      await forEachAtOnce(indexes, 16, (index) =>
        h.engine.create(
          command(bankTransfer(20_000 + index, { scheduleAt: later }), `month-end-later-${index}`),
        ),
      );
      h.clock.set(later);
      // The month-end of the tests before is still pending: queued, never claimed.
      expect(await h.store.countByStatus(PayoutStatus.Pending, MONTH_END + 1)).toBe(MONTH_END);

      const full = new RecordingQueue();
      const none = await payoutSweeper(h.engine).dispatch(full, { pageSize: 500, maxEnqueued: MONTH_END });
      // The queue already holds the tick's maximum: nothing is released to wait behind it.
      expect(none).toMatchObject({ released: 0, enqueued: MONTH_END, leftOver: true });

      const queue = new RecordingQueue();
      const report = await payoutSweeper(h.engine).dispatch(queue, {
        pageSize: 500,
        maxEnqueued: MONTH_END + 50,
      });

      // The still queued first, a page of 500 at a time; then one round of 32 and what the maximum leaves (18),
      // not a page.
      expect(report).toMatchObject({ released: 50, enqueued: MONTH_END + 50, leftOver: true });
      expect(queue.sizes).toEqual([500, MONTH_END - 500, RELEASES_IN_FLIGHT, 50 - RELEASES_IN_FLIGHT]);
      expect(await h.store.countByStatus(PayoutStatus.Scheduled, MONTH_END)).toBe(50);
    },
    VOLUME_TEST_MS,
  );
});
