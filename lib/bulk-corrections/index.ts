/**
 * Corrections of invalid bulk payout items: local validation, `PATCH /payout/bulk/item`, the provider's
 * validation record and an audit of every change. The services depend on their stores' ports (`BulkItemStore`,
 * bulk-item-store.ts; `CorrectionJobStore`, job-store.ts), which the table implements (store/dynamodb-*.ts) and, for
 * unit tests only, memory (store/in-memory-*.ts, imported by no Lambda).
 *
 * @example
 * const service = new BulkCorrectionService({ store: new DynamoDbBulkItemStore(client, table), provider });
 * await service.correct('item-1', { accountNumber: '0123456789' }, actor);
 */
export type { RowNaming } from './batch-validation.js';
export * from './bulk-item-store.js';
export * from './correction-context.js';
export { describeCorrection } from './correction-instruction.js';
export * from './correction-jobs.js';
export * from './correction-service.js';
export * from './csv.js';
export * from './job-errors.js';
export * from './job-model.js';
export * from './job-queue.js';
export * from './job-store.js';
export * from './model.js';
export { enqueuePendingJobs, type PendingEnqueueReport } from './pending-enqueue.js';
export * from './schemas.js';
export { bulkItemKeys, DynamoDbBulkItemStore } from './store/dynamodb-bulk-item-store.js';
export { DynamoDbCorrectionJobStore, jobKeys, ROWS_PER_BATCH_WRITE } from './store/dynamodb-job-store.js';
