import type { Context, SQSEvent } from 'aws-lambda';
import { submitQueuedPayouts } from '../lib/jobs/submit-payouts.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';

/**
 * SQS event source (the submission queue): submits the payouts the sweeper enqueued, a batch at once, and
 * answers which messages to deliver again. The claim keeps each payout exactly-once across redeliveries.
 */
export const handler = withRuntime((event: SQSEvent, runtime, context: Context) =>
  submitQueuedPayouts(runtime, event, context.getRemainingTimeInMillis()),
);
