import type { Context, ScheduledEvent } from 'aws-lambda';
import { runStatementTick } from '../lib/jobs/statement-reconciliation.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';

/**
 * EventBridge schedule (hourly): reconciles the day before against the provider's wallet records once the stage's
 * statement time has passed, and stores its report (docs/statements.md); it stops starting work before its deadline.
 */
export const handler = withRuntime((_event: ScheduledEvent, runtime, context: Context) =>
  runStatementTick(runtime, context.getRemainingTimeInMillis()),
);
