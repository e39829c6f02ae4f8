import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { Runtime } from '../runtime/runtime.js';
import { runSubmissionBatch } from './submission-batch.js';

/**
 * One batch of the submission queue: submits the payouts the sweeper enqueued and answers which messages to
 * deliver again. The claim keeps each payout exactly-once across redeliveries.
 */
export async function submitQueuedPayouts(
  runtime: Runtime,
  event: SQSEvent,
  remainingMs: number,
): Promise<SQSBatchResponse> {
  const { response, report } = await runSubmissionBatch(
    runtime.engine,
    event,
    remainingMs,
    runtime.logger,
    runtime.rateLimiter ? { limiter: runtime.rateLimiter } : {},
  );
  runtime.logger.info('submission batch finished', { ...report });
  return response;
}
