import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import {
  correctionJobsOf,
  deliveringQueueOf,
  payoutEngineOf,
  type Runtime,
  rateLimiterOf,
  traceDynamoDbCalls,
} from '../runtime/index.js';
import { handBackPromptly } from './hand-back.js';
import { runQueueBatch } from './queue-batch.js';
import { runSubmissionBatch } from './submission-batch.js';

/**
 * One batch of the submission queue: submits the payouts the sweeper enqueued and works the correction-job rows
 * the API enqueued (told apart by the message's `kind`), and answers which messages to deliver again (made
 * visible again within seconds: `handBackPromptly`). The claims keep each payout and each row exactly-once
 * across redeliveries.
 */
export async function workSubmissionQueue(
  runtime: Runtime,
  event: SQSEvent,
  remainingMs: number,
): Promise<SQSBatchResponse> {
  traceDynamoDbCalls(runtime);
  const limiter = rateLimiterOf(runtime);
  const { response, report } = await runQueueBatch(
    {
      submit: (payouts) =>
        runSubmissionBatch(
          payoutEngineOf(runtime),
          payouts,
          remainingMs,
          runtime.logger,
          limiter ? { limiter } : {},
        ),
      // Built for the first correction row only: a batch of payouts never needs the correction services.
      jobs: { work: (...row) => correctionJobsOf(runtime).work(...row) },
    },
    event,
    remainingMs,
    runtime.logger,
  );
  runtime.logger.info('submission batch finished', { ...report });
  // What goes back is delivered again in seconds, not after the 24-minute visibility timeout.
  const queue = deliveringQueueOf(runtime, event.Records[0]?.eventSourceARN);
  await handBackPromptly(queue, event, response, runtime.logger);
  return response;
}
