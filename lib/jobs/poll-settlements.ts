import { type Runtime, settlementsOf, submissionsOf } from '../runtime/index.js';
import type { PollReport } from '../settlement/index.js';
import { logTick } from '../shared/logger.js';

/**
 * The poll decides no settlement with less than this left: a page read abandoned at its deadline, or one
 * settlement's decision (its read, the cutoff, the payout's creation, the decision's record: ten table calls;
 * the margin was set for eleven, when a trigger also read the decision first), each call to its deadline
 * (test/infra/handler-limits.test.ts).
 */
export const POLL_STOP_STARTING_BEFORE_DEADLINE_MS = 172_000;

/**
 * Without the submission queue, the poll submits a payout inline only with this much left: the decision and the
 * submission (the claim, the pacer's slot, the provider call, the recording). With less, the payout is created
 * for the sweeper, which sends it at its next tick. This is longer than the function's timeout: in Lambda, where
 * the poll hands every payout to the submission workers, it would never submit inline anyway.
 */
export const POLL_SUBMIT_INLINE_BEFORE_DEADLINE_MS = 320_000;

/**
 * Pays SUCCESSFUL settlements no trigger has decided yet; a no-op when instant settlement is not configured.
 * `remainingMs` is what the invocation has left (Lambda's `getRemainingTimeInMillis()`). Where the submission
 * workers are deployed (SUBMIT_QUEUE_URL), each payout is handed to them at once.
 */
export async function pollSettlements(
  runtime: Runtime,
  remainingMs?: number,
  now = Date.now(),
): Promise<PollReport | { configured: false }> {
  const settlements = settlementsOf(runtime);
  if (!settlements) return { configured: false };
  const report = await settlements.poll(
    undefined,
    remainingMs === undefined
      ? undefined
      : {
          stopStartingAt: now + remainingMs - POLL_STOP_STARTING_BEFORE_DEADLINE_MS,
          submitInlineUntil: now + remainingMs - POLL_SUBMIT_INLINE_BEFORE_DEADLINE_MS,
        },
    submissionsOf(runtime),
  );
  // Each decision is logged by the settlement service; an idle poll says nothing at INFO.
  logTick(runtime.logger, 'settlement poll finished', { ...report });
  return report;
}
