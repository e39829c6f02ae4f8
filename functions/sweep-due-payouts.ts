import type { Context, ScheduledEvent } from 'aws-lambda';
import { runDueDispatch, runDueSweep } from '../lib/api/scheduled.js';
import type { RecurrenceService } from '../lib/recurrence/recurrence-service.js';
import { recurrenceServiceFrom } from '../lib/recurrence/wiring.js';
import type { RefundService } from '../lib/refunds/refund-service.js';
import { refundServiceFrom } from '../lib/refunds/wiring.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';
import { logTick } from '../lib/shared/logger.js';

let services: { recurrences: RecurrenceService; refunds: RefundService } | undefined;

/**
 * EventBridge schedule (every minute): materialise due occurrences of recurring payouts, release due scheduled
 * payouts and hand the pending ones to the submission queue (the `submit-payouts` workers send them), then
 * send refunds recorded but never sent, stopping in time to leave the rest to the next tick.
 */
export const handler = withRuntime(async (_event: ScheduledEvent, runtime, context: Context) => {
  services ??= { recurrences: recurrenceServiceFrom(runtime), refunds: refundServiceFrom(runtime) };
  const parts = { engine: runtime.engine, ...services };
  const remainingMs = context.getRemainingTimeInMillis();
  // The deployed sweeper always has the queue (SUBMIT_QUEUE_URL); without one it submits inline, as before.
  const report = runtime.submissions
    ? await runDueDispatch({ ...parts, submissions: runtime.submissions }, remainingMs)
    : await runDueSweep(parts, remainingMs);
  logTick(runtime.logger, 'sweep finished', { ...report });
  return report;
});
