import type { Payout } from '../model.js';
import type { SubmissionRequest } from '../queue/submission-queue.js';
import type { EngineContext } from './context.js';
import { claimForSubmission, type SubmitResult, sendClaimed } from './submit-payout.js';

/** What a worker did with one request: sent, skipped (nothing sent), or deferred (not started: try again). */
export type RequestedSubmitResult =
  | SubmitResult
  | { readonly kind: 'deferred'; readonly payoutId: string; readonly why: string };

export interface SubmitRequestedOptions {
  /** Claim nothing after this instant (epoch ms on the real clock): the request is deferred, not dropped. */
  readonly stopStartingAt?: number;
  /**
   * Awaited after a successful claim, before the provider is called: the fleet-wide rate limiter's turn.
   * The claim's lease covers the wait (see `docs/submission.md`).
   */
  readonly beforeSend?: (payout: Payout) => Promise<void>;
}

/**
 * Submits the payouts named by a batch of queued requests, all at once: each is read, claimed (the
 * exactly-once gate: a request for a payout already claimed, sent or no longer pending sends nothing) and sent.
 * Results are in the order of `requests`; a request whose read, claim or recording threw is a rejected entry,
 * so the caller can hand exactly that message back to the queue.
 */
export async function submitRequested(
  ctx: EngineContext,
  requests: readonly SubmissionRequest[],
  options: SubmitRequestedOptions = {},
): Promise<PromiseSettledResult<RequestedSubmitResult>[]> {
  return Promise.allSettled(requests.map((request) => submitOne(ctx, request, options)));
}

async function submitOne(
  ctx: EngineContext,
  request: SubmissionRequest,
  options: SubmitRequestedOptions,
): Promise<RequestedSubmitResult> {
  if (options.stopStartingAt !== undefined && Date.now() >= options.stopStartingAt) {
    return { kind: 'deferred', payoutId: request.payoutId, why: 'the invocation ran out of time' };
  }
  const payout = await ctx.store.get(request.payoutId);
  if (!payout) {
    ctx.logger.warn('queued payout not found', { payoutId: request.payoutId });
    return { kind: 'deferred', payoutId: request.payoutId, why: 'no such payout' };
  }
  const claimed = await claimForSubmission(ctx, payout);
  if (claimed.kind !== 'claimed') return claimed;
  await options.beforeSend?.(claimed.payout);
  const sent = await sendClaimed(ctx, claimed);
  return sent.recording;
}
