/**
 * Refund requests to the provider, recorded in the project's table with an idempotency key. The service and the
 * sender depend on the store's port (`RefundStore`, refund-store.ts); the table implements it
 * (store/dynamodb-refund-store.ts), and so does memory, for unit tests (store/in-memory-refund-store.ts, which no
 * Lambda bundle carries: only tests import it).
 *
 * @example
 * const refunds = new RefundService({ store: new DynamoDbRefundStore(client, tableName), provider });
 * const { refund, replayed } = await refunds.request({ request, idempotencyKey: 'rf-1', actor });
 */
export * from './accepted-refunds.js';
export * from './errors.js';
export * from './model.js';
export { RefundSender } from './refund-sender.js';
export * from './refund-service.js';
export * from './refund-store.js';
export { DynamoDbRefundStore, refundKeys } from './store/dynamodb-refund-store.js';
