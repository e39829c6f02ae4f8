/**
 * Refund requests to the provider, recorded in the project's table with an idempotency key.
 *
 * @example
 * const refunds = new RefundService({ store: new DynamoDbRefundStore(client, tableName), provider });
 * const { refund, replayed } = await refunds.request({ request, idempotencyKey: 'rf-1', actor });
 */
export * from './accepted-refunds.js';
export * from './errors.js';
export * from './model.js';
export * from './refund-service.js';
export * from './refund-store.js';
