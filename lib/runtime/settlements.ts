import { Settlements } from '../provider/index.js';
import {
  DynamoDbSettlementDecisionStore,
  type SettlementPolicy,
  SettlementService,
  settlementPolicyFromEnv,
} from '../settlement/index.js';
import { payoutEngineOf } from './engines.js';
import { providerConnectionOf } from './provider-connection.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

/** Instant settlement; undefined unless the runtime has a settlement policy (SETTLEMENT_DESTINATION_* set). */
export function settlementsOf(runtime: Runtime): SettlementService | undefined {
  const policy = settlementPolicyOf(runtime);
  if (!policy) return undefined;
  return once(
    runtime,
    'settlements',
    () =>
      new SettlementService({
        engine: payoutEngineOf(runtime),
        provider: { settlements: new Settlements(providerConnectionOf(runtime).requester) },
        store: new DynamoDbSettlementDecisionStore(runtime.dynamoDb, runtime.tableName),
        policy,
        logger: runtime.logger,
        clock: runtime.payouts.ctx.clock,
      }),
  );
}

/**
 * The instant-settlement policy, parsed from the runtime's SETTLEMENT_* variables on first use and kept; undefined
 * unless SETTLEMENT_DESTINATION_* are set. A bad policy fails the first settling invocation, naming the variable.
 */
export function settlementPolicyOf(runtime: Runtime): SettlementPolicy | undefined {
  return once(runtime, 'settlementPolicy', () => settlementPolicyFromEnv(runtime.settlementEnv));
}
