import type { EventBridgeEvent } from 'aws-lambda';
import { handlePayoutRequested, type PayoutRequestedOutcome } from '../lib/events/inbound-handlers.js';
import { runtimeFromProcessEnv } from '../lib/runtime/runtime.js';

/**
 * EventBridge rule target for `Payout Requested` (source `merchant.payouts`). An invalid event throws
 * `InvalidEventError` naming the field; Lambda's on-failure destination (SQS, in infra/) then holds the
 * event with that error. Nothing is written for an invalid event.
 */
export async function handler(event: EventBridgeEvent<string, unknown>): Promise<PayoutRequestedOutcome> {
  const runtime = runtimeFromProcessEnv();
  return handlePayoutRequested(runtime.engine, event, runtime.logger);
}
