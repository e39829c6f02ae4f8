/**
 * Payroll runs: pay hundreds of people from one file, approved once as a whole, each paid exactly once
 * (docs/payout-runs.md).
 *
 * @example
 * const runs = new PayoutRunService({ store: new DynamoDbPayoutRunStore(client, table), payouts: ledger, limits });
 * const { run } = await runs.submit({ entries, source: 'csv', fileSha256, actor, idempotencyKey: 'payroll-2026-06' });
 */
export * from './cancel-rows.js';
export * from './materialiser.js';
export * from './model.js';
export * from './row-ends.js';
export * from './run-end-store.js';
export * from './run-ends.js';
export {
  RUN_ROWS_PER_BATCH_WRITE,
  runKeys,
  runListing,
  runSchema,
} from './run-items.js';
export * from './run-service.js';
export * from './run-store.js';
export { RunWarningsError } from './run-submission.js';
export type { RowResult, RowStatus, RunView } from './run-view.js';
export * from './schemas.js';
