import { deadLetterStoreOf } from '../runtime/dead-letter-store.js';
import type { Runtime } from '../runtime/runtime.js';
import { settlementsOf } from '../runtime/settlements.js';
import type { PayOutResult } from '../settlement/settlement-service.js';
import { type DeadLettered, withDeadLetter } from './dead-letter.js';
import { handleSettlementAvailable } from './inbound-handlers.js';

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
