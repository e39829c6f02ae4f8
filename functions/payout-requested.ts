import type { EventBridgeEvent } from 'aws-lambda';
import { payoutRequested } from '../lib/events/rule-targets.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';

/** EventBridge rule target for `Payout Requested` (source `merchant.payouts`); invalid events become dead letters. */
export const handler = withRuntime((event: EventBridgeEvent<string, unknown>, runtime) =>
  payoutRequested(runtime, event),
);
