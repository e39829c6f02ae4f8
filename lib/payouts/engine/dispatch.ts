import { type SubmissionQueue, submissionRequestsFor } from '../queue/submission-queue.js';
import { WorkQueue } from '../store/table-design.js';
import type { EngineContext } from './context.js';
import { releaseScheduled } from './sweep.js';

export interface DispatchOptions {
  /** Payouts read per query of the work queue (one page, enqueued before the next is read). */
  readonly pageSize?: number;
  /** Start no new page after this instant (epoch ms on the real clock), so the tick ends before its deadline. */
  readonly stopStartingAt?: number;
  /**
   * Most requests to enqueue in this tick (the stage's `submission.maxEnqueuePerTick`): the rest stays in the
   * work queue for the next tick. Unbounded when unset.
   */
  readonly maxEnqueued?: number;
}

export interface DispatchReport {
  readonly released: number;
  /** Scheduled payouts found too late to pay (after an outage); each is audited and logged as an error. */
  readonly missed: number;
  /** Submission requests handed to the workers' queue (a FIFO queue drops those it already holds). */
  readonly enqueued: number;
  /** True when due work was left for the next tick (time ran out, or the tick's maximum was enqueued). */
  readonly leftOver: boolean;
}

export const DEFAULT_DISPATCH_PAGE_SIZE = 500;

/**
 * One tick of the sweeper when submission is fanned out: releases the scheduled payouts whose time has come,
 * then hands every due pending payout to the submission queue, page by page, and sends nothing itself. The
 * workers claim each payout before sending it, so a payout enqueued twice (by two ticks, or after a
 * redelivery) is still sent at most once.
 *
 * Cheap and bounded: a query and a batch of enqueues per page, never a provider call, so one tick hands over a
 * whole month-end backlog and the queue's consumers pay it at their own concurrency.
 */
export async function dispatchDuePayouts(
  ctx: EngineContext,
  queue: SubmissionQueue,
  options: DispatchOptions = {},
): Promise<DispatchReport> {
  const pageSize = Math.max(1, options.pageSize ?? DEFAULT_DISPATCH_PAGE_SIZE);
  const maxEnqueued = Math.max(1, options.maxEnqueued ?? Number.POSITIVE_INFINITY);
  const outOfTime = () => options.stopStartingAt !== undefined && Date.now() >= options.stopStartingAt;
  let released = 0;
  let missed = 0;
  let leftOver = false;
  // Released payouts leave the scheduled queue, so each round reads the next ones; a short page is the last.
  for (;;) {
    const round = await releaseScheduled(ctx, pageSize);
    released += round.released;
    missed += round.missed;
    if (round.released + round.missed < pageSize) break;
    if (outOfTime()) {
      leftOver = true;
      break;
    }
  }
  let enqueued = 0;
  const dueBy = ctx.clock.now().toISOString();
  let after: Parameters<EngineContext['store']['due']>[3];
  while (!leftOver) {
    const limit = Math.min(pageSize, maxEnqueued - enqueued);
    const page = await ctx.store.due(WorkQueue.Submit, dueBy, limit, after);
    const requests = submissionRequestsFor(page);
    if (requests.length > 0) await queue.enqueue(requests);
    enqueued += requests.length;
    after = page.at(-1);
    if (page.length < limit) break;
    // The work queue is read oldest first, so what a full tick leaves is the newest: the next tick reads the
    // same head again (FIFO drops what is still queued) and goes on past what the workers have paid meanwhile.
    if (enqueued >= maxEnqueued || outOfTime()) leftOver = true;
  }
  if (enqueued > 0) ctx.metrics.count('PayoutsEnqueued', enqueued);
  return { released, missed, enqueued, leftOver };
}
