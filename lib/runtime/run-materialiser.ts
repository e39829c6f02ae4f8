import { DynamoDbPayoutRunStore, RunMaterialiser } from '../payout-runs/index.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

// Apart from payout-runs.ts, and importing the room's files rather than its index: the sweep's bundle (at its
// limit) then carries neither the file validation (schemas.ts) nor the runs' end bookkeeping.

/**
 * The sweep's side of payout runs: their rows become payouts through the runtime's payout ledger (so the same
 * engine, gate and workers as every payout).
 */
export function runMaterialiserOf(runtime: Runtime): RunMaterialiser {
  return once(
    runtime,
    'runMaterialiser',
    () =>
      new RunMaterialiser({
        store: new DynamoDbPayoutRunStore(runtime.dynamoDb, runtime.tableName),
        payouts: runtime.payouts,
        clock: runtime.payouts.ctx.clock,
        logger: runtime.logger,
      }),
  );
}
