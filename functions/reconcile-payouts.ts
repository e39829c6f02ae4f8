import type { Context, ScheduledEvent } from 'aws-lambda';
import { reconcilePayouts } from '../lib/jobs/reconciler-tick.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';

/** EventBridge schedule: decide payouts whose outcome is unknown, never by resending them. */
export const handler = withRuntime((_event: ScheduledEvent, runtime, context: Context) =>
  reconcilePayouts(runtime, context.getRemainingTimeInMillis()),
);
