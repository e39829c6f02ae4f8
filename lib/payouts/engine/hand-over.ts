import type { Payout } from '../model.js';
import { type SubmissionQueue, submissionRequestsFor } from '../queue/submission-queue.js';
import type { EngineContext } from './context.js';

/**
 * Hands a pending payout to the submission workers, as the sweeper's dispatch does, instead of sending it here.
 * The payout must have been created without the creator's hold (`submitsInline` unset): it is then on the work
 * queue, due at once, so a refused hand-over costs it a sweeper tick, never the payout; and the sweeper finding
 * it before the workers do enqueues the same request (a FIFO queue drops it). The workers' claim keeps the send
 * exactly-once whoever enqueued it, and however often. A payout that is not pending (awaiting approval, already
 * claimed or sent) is not handed over.
 *
 * @example await handOverPending(engine.ctx, payout, queue);
 */
export async function handOverPending(
  ctx: EngineContext,
  payout: Payout,
  queue: SubmissionQueue,
): Promise<void> {
  const requests = submissionRequestsFor([payout]);
  if (requests.length === 0) return;
  try {
    await queue.enqueue(requests);
  } catch (error) {
    ctx.logger.warn(
      'hand-over to the submission queue failed: the sweeper enqueues the payout at its next tick',
      {
        payoutId: payout.id,
        error: error instanceof Error ? error.message : String(error),
      },
    );
    return;
  }
  ctx.metrics.count('PayoutsEnqueued', 1);
}
