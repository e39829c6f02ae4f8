import type { EventBridgeEvent } from 'aws-lambda';
import { settlementAvailable } from '../lib/events/settlement-target.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';

/** EventBridge rule target for `Settlement Available`: pays the settlement out at most once. */
export const handler = withRuntime((event: EventBridgeEvent<string, unknown>, runtime) =>
  settlementAvailable(runtime, event),
);
