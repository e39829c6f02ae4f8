import type { EventBridgeEvent } from 'aws-lambda';
import { handlePayoutRequested, type PayoutRequestedOutcome } from '../lib/events/inbound-handlers.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';

/**
 * EventBridge rule target for `Payout Requested` (source `merchant.payouts`). An invalid event throws
 * `InvalidEventError` naming the field; Lambda's on-failure destination (SQS, in infra/) then holds the
 * event with that error. Nothing is written for an invalid event.
 */
export const handler = withRuntime(
  async (event: EventBridgeEvent<string, unknown>, runtime): Promise<PayoutRequestedOutcome> => {
    return handlePayoutRequested(runtime.engine, event, runtime.logger);
  },
);
