import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { publishDomainEvents } from '../lib/events/stream-target.js';
import { domainEventRuntimeFromProcessEnv } from '../lib/runtime/domain-event-runtime.js';

/** DynamoDB Streams -> EventBridge: one domain event per payout outcome, retried from the first failure. */
export function handler(event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> {
  return publishDomainEvents(domainEventRuntimeFromProcessEnv(), event, context.getRemainingTimeInMillis());
}
