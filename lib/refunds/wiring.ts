import type { Runtime } from '../runtime/runtime.js';
import { RefundService } from './refund-service.js';
import { DynamoDbRefundStore } from './refund-store.js';

/** The refund service on the runtime's table, provider client and clock, under the payout engine's limits. */
export function refundServiceFrom(
  runtime: Pick<Runtime, 'dynamoDb' | 'tableName' | 'provider' | 'logger' | 'engine'>,
): RefundService {
  return new RefundService({
    store: new DynamoDbRefundStore(runtime.dynamoDb, runtime.tableName),
    provider: runtime.provider,
    limits: runtime.engine.ctx.config,
    clock: runtime.engine.ctx.clock,
    logger: runtime.logger,
  });
}
