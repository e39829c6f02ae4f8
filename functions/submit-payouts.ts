import type { Context, SQSEvent } from 'aws-lambda';
import { workSubmissionQueue } from '../lib/jobs/submit-payouts.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';

/**
 * SQS event source (the submission queue): submits the payouts the sweeper enqueued and works the rows of
 * correction jobs the API enqueued, a batch at once, and answers which messages to deliver again. The claims
 * keep each payout and each row exactly-once across redeliveries.
 */
export const handler = withRuntime((event: SQSEvent, runtime, context: Context) =>
  workSubmissionQueue(runtime, event, context.getRemainingTimeInMillis()),
);
