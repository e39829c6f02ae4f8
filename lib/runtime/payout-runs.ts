import { DynamoDbPayoutRunStore, PayoutRunService } from '../payout-runs/index.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

/** The API's payout runs: accepted, approved, cancelled and viewed through the runtime's payout ledger. */
export function payoutRunsOf(runtime: Runtime): PayoutRunService {
  return once(
    runtime,
    'payoutRuns',
    () =>
      new PayoutRunService({
        store: new DynamoDbPayoutRunStore(runtime.dynamoDb, runtime.tableName),
        payouts: runtime.payouts,
        limits: () => runtime.payouts.ctx.config,
        ...(runtime.env.PROVIDER_RATE_LIMIT_PER_SECOND && {
          providerRatePerSecond: runtime.env.PROVIDER_RATE_LIMIT_PER_SECOND,
        }),
        clock: runtime.payouts.ctx.clock,
        logger: runtime.logger,
      }),
  );
}

export { runMaterialiserOf } from './run-materialiser.js';
