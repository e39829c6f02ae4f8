import type { SendingContext } from './engine/context.js';
import { type DispatchOptions, type DispatchReport, dispatchDuePayouts } from './engine/dispatch.js';
import { type SweepOptions, type SweepReport, sweepDuePayouts } from './engine/sweep.js';
import type { SubmissionQueue } from './queue/submission-queue.js';

/** The every-minute tick's part of the payout engine: release what is due, and send it or hand it to the queue. */
export interface PayoutSweeper {
  /** One tick of the due-payout sweeper: releases due scheduled payouts and submits the pending ones. */
  sweep(options?: SweepOptions): Promise<SweepReport>;
  /** One tick that fans submission out: releases due scheduled payouts, enqueues the pending. */
  dispatch(queue: SubmissionQueue, options?: DispatchOptions): Promise<DispatchReport>;
}

/**
 * The sweeper on an engine's context. Not methods of `PayoutEngine`: only the sweeper function runs them, so
 * no other function's bundle carries them (as `submitRequested` and `reconcilePayouts`).
 *
 * @example await payoutSweeper(engine).sweep({ stopStartingAt });
 */
export function payoutSweeper(engine: { readonly ctx: SendingContext }): PayoutSweeper {
  return {
    sweep: (options) => sweepDuePayouts(engine.ctx, options),
    dispatch: (queue, options) => dispatchDuePayouts(engine.ctx, queue, options),
  };
}
