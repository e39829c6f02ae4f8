import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { runSubmissionBatch } from '../lib/api/queued.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';

/**
 * SQS event source (the submission queue): submits the payouts the sweeper enqueued, a batch at once, and
 * answers which messages to deliver again. The claim keeps each payout exactly-once across redeliveries.
 */
export const handler = withRuntime(
  async (event: SQSEvent, runtime, context: Context): Promise<SQSBatchResponse> => {
    const { response, report } = await runSubmissionBatch(
      runtime.engine,
      event,
      context.getRemainingTimeInMillis(),
      runtime.logger,
      runtime.rateLimiter ? { limiter: runtime.rateLimiter } : {},
    );
    runtime.logger.info('submission batch finished', { ...report });
    return response;
  },
);
