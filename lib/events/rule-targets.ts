import { deadLetterStoreOf } from '../runtime/dead-letter-store.js';
import type { Runtime } from '../runtime/runtime.js';
import { settlementsOf } from '../runtime/settlements.js';
import type { PayOutResult } from '../settlement/settlement-service.js';
import { type DeadLettered, withDeadLetter } from './dead-letter.js';
import {
  handlePayoutRequested,
  handleSettlementAvailable,
  type PayoutRequestedOutcome,
} from './inbound-handlers.js';

/**
 * The EventBridge rule targets (`merchant.payouts`), on the composition root's runtime. An invalid event (it can
 * never succeed) is kept as a dead letter in the table, with the fields that are wrong, for ops to list, replay
 * or discard (`GET /dead-letters`); any other failure throws, so Lambda retries and then the rule target's
 * on-failure queue holds it.
 */
export function payoutRequested(
  runtime: Runtime,
  event: unknown,
): Promise<PayoutRequestedOutcome | DeadLettered> {
  return withDeadLetter(
    (e: unknown) => handlePayoutRequested(runtime.engine, e, runtime.logger),
    deadLetterStoreOf(runtime),
  )(event);
}

/** `Settlement Available`: pays the settlement out at most once. */
export async function settlementAvailable(
  runtime: Runtime,
  event: unknown,
): Promise<PayOutResult['outcome'] | DeadLettered> {
  const result = await withDeadLetter(
    (e: unknown) => handleSettlementAvailable(settlementsOf(runtime), e),
    deadLetterStoreOf(runtime),
  )(event);
  if ('deadLettered' in result) return result;
  runtime.logger.info('settlement event handled', { outcome: result.outcome });
  return result.outcome;
}
