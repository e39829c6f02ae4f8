import type { Runtime } from '../runtime/runtime.js';
import { RecurrenceService } from './recurrence-service.js';
import { DynamoDbRecurrenceStore } from './store/dynamodb-recurrence-store.js';

/**
 * The recurrence service on the runtime's table and engine, sharing the engine's clock so that an injected
 * clock moves both, and the engine's limits so that a rule passes the same gate as a payout.
 */
export function recurrenceServiceFrom(
  runtime: Pick<Runtime, 'dynamoDb' | 'tableName' | 'engine' | 'logger'>,
): RecurrenceService {
  return new RecurrenceService({
    store: new DynamoDbRecurrenceStore(runtime.dynamoDb, runtime.tableName),
    payouts: runtime.engine,
    limits: runtime.engine.ctx.config,
    clock: runtime.engine.ctx.clock,
    logger: runtime.logger,
  });
}
