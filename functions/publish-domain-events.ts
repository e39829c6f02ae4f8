import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { EventBridgePublisher } from '../lib/events/event-publisher.js';
import { publishStreamBatch } from '../lib/events/publish-stream-batch.js';
import { powertoolsLogger } from '../lib/shared/powertools.js';

const busName = process.env.EVENT_BUS_NAME;
if (!busName) throw new Error('EVENT_BUS_NAME is not set');
const publisher = EventBridgePublisher.fromEnvironment(busName);
const logger = powertoolsLogger('payouts-domain-events');

/** DynamoDB Streams -> EventBridge: one domain event per payout outcome, retried from the first failure. */
export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const result = await publishStreamBatch(event.Records, publisher, logger);
  logger.info('published domain events', { records: event.Records.length, published: result.published });
  return { batchItemFailures: result.failedSequenceNumbers.map((itemIdentifier) => ({ itemIdentifier })) };
}
