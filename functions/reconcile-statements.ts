import type { ScheduledEvent } from 'aws-lambda';
import { runStatementTick } from '../lib/jobs/statement-reconciliation.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';

/**
 * EventBridge schedule (hourly): reconciles the day before against the provider's wallet records once the stage's
 * statement time has passed, and stores its report (docs/statements.md).
 */
export const handler = withRuntime((_event: ScheduledEvent, runtime) => runStatementTick(runtime));
