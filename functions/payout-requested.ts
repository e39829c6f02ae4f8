import type { EventBridgeEvent } from 'aws-lambda';
import { type DeadLettered, DynamoDbDeadLetterStore, withDeadLetter } from '../lib/events/dead-letter.js';
import type { PayoutRequestedOutcome } from '../lib/events/inbound-handlers.js';
import { handlePayoutRequested } from '../lib/events/inbound-handlers.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';

/**
 * EventBridge rule target for `Payout Requested` (source `merchant.payouts`). An invalid event (it can never
 * succeed) is kept as a dead letter in the table, with the fields that are wrong, for ops to list, replay or
 * discard (`GET /dead-letters`); any other failure throws, so Lambda retries and then the on-failure queue holds it.
 */
export const handler = withRuntime(
  async (event: EventBridgeEvent<string, unknown>, runtime): Promise<PayoutRequestedOutcome | DeadLettered> =>
    withDeadLetter(
      (e: unknown) => handlePayoutRequested(runtime.engine, e, runtime.logger),
      new DynamoDbDeadLetterStore(runtime.dynamoDb, runtime.tableName),
    )(event),
);
