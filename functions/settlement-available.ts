import type { EventBridgeEvent } from 'aws-lambda';
import { type DeadLettered, DynamoDbDeadLetterStore, withDeadLetter } from '../lib/events/dead-letter.js';
import { handleSettlementAvailable } from '../lib/events/inbound-handlers.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';
import type { PayOutResult } from '../lib/settlement/settlement-service.js';

/**
 * EventBridge rule target for `Settlement Available`: pays the settlement out at most once. An invalid event is
 * kept as a dead letter in the table (`GET /dead-letters`); any other failure throws and Lambda retries.
 */
export const handler = withRuntime(
  async (
    event: EventBridgeEvent<string, unknown>,
    runtime,
  ): Promise<PayOutResult['outcome'] | DeadLettered> => {
    const result = await withDeadLetter(
      (e: unknown) => handleSettlementAvailable(runtime.settlements, e),
      new DynamoDbDeadLetterStore(runtime.dynamoDb, runtime.tableName),
    )(event);
    if ('deadLettered' in result) return result;
    runtime.logger.info('settlement event handled', { outcome: result.outcome });
    return result.outcome;
  },
);
