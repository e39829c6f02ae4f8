import { Refunds } from '../provider/resources/refunds.js';
import { Transactions } from '../provider/resources/transactions.js';
import { RefundService } from '../refunds/refund-service.js';
import { DynamoDbRefundStore } from '../refunds/refund-store.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

/** Refunds: recorded by the API, sent by the sweep. */
export function refundsOf(runtime: Runtime): RefundService {
  return once(
    runtime,
    'refunds',
    () =>
      new RefundService({
        store: new DynamoDbRefundStore(runtime.dynamoDb, runtime.tableName),
        // Only the resources a refund calls: the sweep's bundle, which sends refunds, carries no other.
        provider: {
          refunds: new Refunds(runtime.providerConnection.requester),
          transactions: new Transactions(runtime.providerConnection.requester),
        },
        limits: runtime.engine.ctx.config,
        clock: runtime.engine.ctx.clock,
        logger: runtime.logger,
      }),
  );
}
