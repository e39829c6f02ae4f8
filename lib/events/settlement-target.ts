import { deadLetterStoreOf, type Runtime, settlementsOf, submissionsOf } from '../runtime/index.js';
import type { PayOutResult, PayoutSender } from '../settlement/index.js';
import { type DeadLettered, withDeadLetter } from './dead-letters/index.js';
import { handleSettlementAvailable } from './inbound-handlers.js';

/**
 * `Settlement Available`: pays the settlement out at most once. Where the submission workers are deployed
 * (SUBMIT_QUEUE_URL), its payout is handed to them rather than sent here: nobody waits on this event, and the
 * function then never sends money itself (docs/submission.md, "Settlements"). Without them it sends the payout
 * itself.
 */
export async function settlementAvailable(
  runtime: Runtime,
  event: unknown,
): Promise<PayOutResult['outcome'] | DeadLettered> {
  const queue = submissionsOf(runtime);
  const sender: PayoutSender = queue ? { by: 'queue', queue } : { by: 'inline' };
  const result = await withDeadLetter(
    (e: unknown) => handleSettlementAvailable(settlementsOf(runtime), e, sender),
    deadLetterStoreOf(runtime),
  )(event);
  if ('deadLettered' in result) return result;
  runtime.logger.info('settlement event handled', { outcome: result.outcome });
  return result.outcome;
}
