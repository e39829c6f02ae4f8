import type { Context, ScheduledEvent } from 'aws-lambda';
import { syncProviderSchedules } from '../lib/jobs/sync-provider-schedules.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';

/** EventBridge schedule: copy the provider's own scheduled and recurrent payouts into the ops view. */
export const handler = withRuntime((_event: ScheduledEvent, runtime, context: Context) =>
  syncProviderSchedules(runtime, context.getRemainingTimeInMillis()),
);
