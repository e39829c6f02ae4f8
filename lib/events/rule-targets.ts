import { deadLetterStoreOf, payoutEngineOf, type Runtime } from '../runtime/index.js';
import { type DeadLettered, withDeadLetter } from './dead-letters/index.js';
import { handlePayoutRequested, type PayoutRequestedOutcome } from './inbound-handlers.js';

/**
 * The EventBridge rule targets (`merchant.payouts`), on the composition root's runtime. An invalid event (it can
 * never succeed) is kept as a dead letter in the table, with the fields that are wrong, for ops to list, replay
 * or discard (`GET /dead-letters`); any other failure throws, so Lambda retries and then the rule target's
 * on-failure queue holds it. `Settlement Available` has its own file (settlement-target.ts), so the
 * `Payout Requested` function neither carries nor evaluates the settlement service.
 */
export function payoutRequested(
  runtime: Runtime,
  event: unknown,
): Promise<PayoutRequestedOutcome | DeadLettered> {
  return withDeadLetter(
    (e: unknown) => handlePayoutRequested(payoutEngineOf(runtime), e, runtime.logger),
    deadLetterStoreOf(runtime),
  )(event);
}
