import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { type CorrectionWorkQueue, correctionMessageOf } from './job-queue.js';
import type { CorrectionJobStore, PendingEnqueue } from './job-store.js';

/** Jobs the sweeper hands over per tick at most. */
export const PENDING_ENQUEUE_PER_TICK = 10;
/** How long after it was accepted a job whose work the queue refused is first offered again by the sweeper. */
export const ENQUEUE_RETRY_DELAY_MS = 60_000;
const MAX_ENQUEUE_RETRY_DELAY_MS = 60 * 60_000;

/** When a job whose sending failed `attempts` times is due again: doubling from a minute, at most an hour. */
export function nextEnqueueAt(now: Date, attempts: number): string {
  const wait = Math.min(MAX_ENQUEUE_RETRY_DELAY_MS, ENQUEUE_RETRY_DELAY_MS * 2 ** attempts);
  return new Date(now.getTime() + wait).toISOString();
}

export interface PendingEnqueueReport {
  readonly enqueued: number;
  readonly stillPending: number;
}

/**
 * The sweeper's part in correction jobs: a job whose work the queue refused when it was accepted (all or some of
 * its messages) is handed over again, with a growing wait between tries, until the queue takes all of it; no
 * person needs to requeue it. Sending a message twice is harmless: FIFO drops a repeat within five minutes, and
 * the worker's claim of each row is the exactly-once gate (a row already done is skipped).
 *
 * @example await enqueuePendingJobs({ store, queue, clock, logger }, { stopStartingAt: Date.now() + 60_000 });
 */
export async function enqueuePendingJobs(
  parts: {
    store: Pick<CorrectionJobStore, 'dueForEnqueue' | 'markEnqueued' | 'retryEnqueueAt'>;
    queue: CorrectionWorkQueue;
    clock: Clock;
    logger: Logger;
  },
  options: { stopStartingAt: number; now?: () => number; limit?: number },
): Promise<PendingEnqueueReport> {
  const now = options.now ?? Date.now;
  if (now() >= options.stopStartingAt) return { enqueued: 0, stillPending: 0 };
  const due = await parts.store.dueForEnqueue(
    parts.clock.now().toISOString(),
    options.limit ?? PENDING_ENQUEUE_PER_TICK,
  );
  let enqueued = 0;
  let stillPending = 0;
  for (const pending of due) {
    if (now() >= options.stopStartingAt) break;
    if (await handOver(parts, pending)) enqueued++;
    else stillPending++;
  }
  return { enqueued, stillPending };
}

async function handOver(
  parts: Parameters<typeof enqueuePendingJobs>[0],
  pending: PendingEnqueue,
): Promise<boolean> {
  try {
    await parts.queue.send(pending.work.map(correctionMessageOf));
  } catch (error) {
    const at = nextEnqueueAt(parts.clock.now(), pending.attempts + 1);
    await parts.store.retryEnqueueAt(pending, at);
    parts.logger.warn('correction job still not enqueued; the sweeper tries again', {
      jobId: pending.jobId,
      attempts: pending.attempts + 1,
      next: at,
      error: error instanceof Error ? error.name : String(error),
    });
    return false;
  }
  await parts.store.markEnqueued(pending.jobId);
  parts.logger.info('correction job handed to the queue by the sweeper', { jobId: pending.jobId });
  return true;
}
