import { WorkQueue } from '../../table/index.js';
import { resumeEpochOf, type SubmissionQueue, submissionRequestsFor } from '../queue/submission-queue.js';
import type { EngineContext } from './context.js';
import { RELEASES_IN_FLIGHT, releaseScheduled } from './sweep.js';

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
  /** The clock `stopStartingAt` is read on (epoch ms; `Date.now` by default). */
  readonly now?: () => number;
}

export interface DispatchReport {
  readonly released: number;
  /** Scheduled payouts found too late to pay (after an outage); each is audited and logged as an error. */
  readonly missed: number;
  /** Submission requests handed to the workers' queue (a FIFO queue drops those it already holds). */
  readonly enqueued: number;
  /** True when due work was left for the next tick (time ran out, or the tick's maximum was enqueued). */
  readonly leftOver: boolean;
  /** Payouts are paused: the tick released what was due but enqueued nothing (the resume's tick does). */
  readonly paused?: boolean;
}

export const DEFAULT_DISPATCH_PAGE_SIZE = 500;

/**
 * One tick of the sweeper when submission is fanned out: hands every due pending payout to the submission queue
 * again (what it still holds is dropped as a duplicate), then releases the scheduled payouts whose time has come
 * into what is left of the tick's maximum, page by page, and sends nothing itself. The workers claim each payout
 * before sending it, so a payout enqueued twice (by two ticks, or after a redelivery) is still sent at most once.
 *
 * The pending payouts count against the maximum first, so the queue never holds more than one tick's maximum
 * (docs/submission.md, "Sizing a stage"). Each round of released payouts is enqueued as soon as it is released,
 * the first after one round of writes (`RELEASES_IN_FLIGHT`), so a month-end's first sends start seconds into the
 * tick that releases them, even one whose time runs out before all are released. The controls are read once:
 * paused, nothing is enqueued (a worker would skip it); otherwise every request carries their epoch, so the
 * requests after a resume are new to the FIFO queue (see `SubmissionRequestSchema`).
 *
 * Cheap and bounded: queries, releases (written `RELEASES_IN_FLIGHT` at once) and batches of enqueues, never a
 * provider call, so one tick hands over a month-end backlog and the queue's consumers pay it at their own
 * concurrency.
 */
export async function dispatchDuePayouts(
  ctx: EngineContext,
  queue: SubmissionQueue,
  options: DispatchOptions = {},
): Promise<DispatchReport> {
  const pageSize = Math.max(1, options.pageSize ?? DEFAULT_DISPATCH_PAGE_SIZE);
  const maxEnqueued = Math.max(1, options.maxEnqueued ?? Number.POSITIVE_INFINITY);
  const clock = options.now ?? Date.now;
  const outOfTime = () => options.stopStartingAt !== undefined && clock() >= options.stopStartingAt;
  // Read alongside the first page of releases; a pause landing later is met by the workers' own pause read.
  const controls = await ctx.store.getControls();
  const resumeEpoch = resumeEpochOf(controls);
  let released = 0;
  let missed = 0;
  let enqueued = 0;
  let leftOver = false;
  // What this tick enqueued as it released it, so the pending pages neither send nor count it again.
  const enqueuedIds = new Set<string>();
  const enqueue = async (payouts: Parameters<typeof submissionRequestsFor>[0]) => {
    if (controls.paused) return;
    const requests = submissionRequestsFor(
      payouts.filter((payout) => !enqueuedIds.has(payout.id)),
      resumeEpoch,
      ctx.clock.now(),
    ).slice(0, maxEnqueued - enqueued);
    if (requests.length === 0) return;
    await queue.enqueue(requests);
    for (const request of requests) enqueuedIds.add(request.payoutId);
    enqueued += requests.length;
  };
  // What is still queued first: every pending payout due was handed to the queue by an earlier tick (or its
  // creation), so the tick hands the head over again (FIFO drops what it still holds) and counts it against its
  // maximum. Releases get only what is left, so the queue never holds more than one tick's maximum: at the
  // stage's sizing (two ticks of draining) no message waits out FIFO's 5-minute window and is queued twice.
  const dueBy = ctx.clock.now().toISOString();
  let after: Parameters<EngineContext['store']['due']>[3];
  while (!controls.paused) {
    const limit = Math.min(pageSize, maxEnqueued - enqueued);
    if (limit <= 0) {
      leftOver = true;
      break;
    }
    const page = await ctx.store.due(WorkQueue.Submit, dueBy, limit, after);
    await enqueue(page);
    after = page.at(-1);
    if (page.length < limit) break;
    // The work queue is read oldest first, so what a full tick leaves is the newest: the next tick reads the
    // same head again (FIFO drops what is still queued) and goes on past what the workers have paid meanwhile.
    if (outOfTime()) {
      leftOver = true;
      break;
    }
  }
  // Released payouts leave the scheduled queue, so each round reads the next ones; a short page is the last.
  // The first round is one round of writes (RELEASES_IN_FLIGHT at once), not a page: a month-end's first sends
  // wait for 32 releases, not 500 (on DynamoDB Local, seconds); the pages after it are full.
  // No round releases more than the tick may still enqueue: a payout released but not enqueued would wait for
  // the next tick. Paused, releases go on (they send nothing) and are enqueued by the resume's tick.
  let size = Math.min(pageSize, RELEASES_IN_FLIGHT, maxEnqueued - enqueued);
  while (!leftOver && size > 0) {
    const round = await releaseScheduled(ctx, size);
    released += round.released;
    missed += round.missed;
    // Enqueued at once, as it is released: the first sends of a month-end start in the tick that releases it.
    await enqueue(round.nowPending);
    // A short page is the last; so is one that released nothing (what is left there is not releasable).
    if (round.read < size || round.released + round.missed === 0) break;
    size = Math.min(pageSize, maxEnqueued - enqueued);
    if (outOfTime() || size <= 0) leftOver = true;
  }
  if (enqueued > 0) ctx.metrics.count('PayoutsEnqueued', enqueued);
  return { released, missed, enqueued, leftOver, ...(controls.paused && { paused: true }) };
}
