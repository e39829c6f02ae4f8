import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { DomainEventRuntime } from '../runtime/domain-event-runtime.js';
import { publishStreamBatch } from './publish-stream-batch.js';

/** DynamoDB Streams -> EventBridge: one domain event per payout outcome, retried from the first failure. */
export async function publishDomainEvents(
  runtime: DomainEventRuntime,
  event: DynamoDBStreamEvent,
): Promise<DynamoDBBatchResponse> {
  const result = await publishStreamBatch(event.Records, runtime.publisher, runtime.logger);
  runtime.logger.info('published domain events', {
    records: event.Records.length,
    published: result.published,
  });
  return { batchItemFailures: result.failedSequenceNumbers.map((itemIdentifier) => ({ itemIdentifier })) };
}
