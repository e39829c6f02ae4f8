import type { Context, ScheduledEvent } from 'aws-lambda';
import { sweepDuePayouts } from '../lib/jobs/sweep-due-payouts.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';

/**
 * EventBridge schedule (every minute): materialise due occurrences of recurring payouts, release due scheduled
 * payouts and hand the pending ones to the submission queue (the `submit-payouts` workers send them), then
 * send refunds recorded but never sent, stopping in time to leave the rest to the next tick.
 */
export const handler = withRuntime((_event: ScheduledEvent, runtime, context: Context) =>
  sweepDuePayouts(runtime, context.getRemainingTimeInMillis()),
);
