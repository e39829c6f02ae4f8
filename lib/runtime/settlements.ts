import { DynamoDbSettlementDecisionStore } from '../settlement/decision-store.js';
import { SettlementService } from '../settlement/settlement-service.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

/** Instant settlement; undefined unless the runtime has a settlement policy (SETTLEMENT_DESTINATION_* set). */
export function settlementsOf(runtime: Runtime): SettlementService | undefined {
  const policy = runtime.settlementPolicy;
  if (!policy) return undefined;
  return once(
    runtime,
    'settlements',
    () =>
      new SettlementService({
        engine: runtime.engine,
        provider: runtime.provider,
        store: new DynamoDbSettlementDecisionStore(runtime.dynamoDb, runtime.tableName),
        policy,
        logger: runtime.logger,
        clock: runtime.engine.ctx.clock,
      }),
  );
}
