import type { Context, ScheduledEvent } from 'aws-lambda';
import { pollSettlements } from '../lib/jobs/poll-settlements.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';

/** EventBridge schedule: pays SUCCESSFUL settlements no trigger has decided yet (a no-op when not configured). */
export const handler = withRuntime((_event: ScheduledEvent, runtime, context: Context) =>
  pollSettlements(runtime, context.getRemainingTimeInMillis()),
);
