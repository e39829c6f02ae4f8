import type { Runtime } from '../runtime/runtime.js';
import { RefundService } from './refund-service.js';
import { DynamoDbRefundStore } from './refund-store.js';

/** The refund service on the runtime's table, provider client and clock. */
export function refundServiceFrom(
  runtime: Pick<Runtime, 'dynamoDb' | 'tableName' | 'provider' | 'logger' | 'engine'>,
): RefundService {
  return new RefundService({
    store: new DynamoDbRefundStore(runtime.dynamoDb, runtime.tableName),
    provider: runtime.provider,
    clock: runtime.engine.ctx.clock,
    logger: runtime.logger,
  });
}
