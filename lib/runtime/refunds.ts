import { Refunds, Transactions } from '../provider/index.js';
import { DynamoDbRefundStore, RefundSender, RefundService } from '../refunds/index.js';
import { providerConnectionOf } from './provider-connection.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

/** Refunds: recorded by the API, sent by the sweep (which asks for `refundSenderOf` alone). */
export function refundsOf(runtime: Runtime): RefundService {
  return once(
    runtime,
    'refunds',
    () =>
      new RefundService({
        store: new DynamoDbRefundStore(runtime.dynamoDb, runtime.tableName),
        // Only the resources a refund calls: the sweep's bundle, which sends refunds, carries no other.
        provider: {
          refunds: new Refunds(providerConnectionOf(runtime).requester),
          transactions: new Transactions(providerConnectionOf(runtime).requester),
        },
        limits: runtime.payouts.ctx.config,
        clock: runtime.payouts.ctx.clock,
        logger: runtime.logger,
      }),
  );
}

/**
 * Refund sending alone (the sweep: claim, send, record), on the store, limits, clock and logger `refundsOf` uses,
 * with the one provider resource it calls; the sweep's bundle then carries no request, approval or view path.
 */
export function refundSenderOf(runtime: Runtime): RefundSender {
  return once(
    runtime,
    'refundSender',
    () =>
      new RefundSender({
        store: new DynamoDbRefundStore(runtime.dynamoDb, runtime.tableName),
        provider: { refunds: new Refunds(providerConnectionOf(runtime).requester) },
        limits: runtime.payouts.ctx.config,
        clock: runtime.payouts.ctx.clock,
        logger: runtime.logger,
      }),
  );
}
