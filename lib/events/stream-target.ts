import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { DomainEventRuntime } from '../runtime/index.js';
import { PUBLISH_STOP_STARTING_BEFORE_DEADLINE_MS, publishStreamBatch } from './publish-stream-batch.js';

/**
 * DynamoDB Streams -> EventBridge: one domain event per payout outcome, retried from the first failure.
 * `remainingMs` is what the invocation has left (Lambda's `getRemainingTimeInMillis()`).
 */
export async function publishDomainEvents(
  runtime: DomainEventRuntime,
  event: DynamoDBStreamEvent,
  remainingMs: number,
  now = Date.now(),
): Promise<DynamoDBBatchResponse> {
  const result = await publishStreamBatch(
    event.Records,
    runtime.publisher,
    runtime.logger,
    { stopStartingAt: now + remainingMs - PUBLISH_STOP_STARTING_BEFORE_DEADLINE_MS },
    runtime.bookkeeper,
  );
  runtime.logger.info('published domain events', {
    records: event.Records.length,
    published: result.published,
  });
  return { batchItemFailures: result.failedSequenceNumbers.map((itemIdentifier) => ({ itemIdentifier })) };
}
