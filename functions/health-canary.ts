import type { ScheduledEvent } from 'aws-lambda';
import { healthCanary } from '../lib/jobs/health-canary.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';

/**
 * EventBridge schedule: the deep health check (the table, the provider's credentials and token), written as
 * the `DeepHealthFailed` metric the canary alarm watches. It answers the result and never throws for a failed
 * check: the alarm is the signal, not a Lambda error.
 */
export const handler = withRuntime((_event: ScheduledEvent, runtime) => healthCanary(runtime));
