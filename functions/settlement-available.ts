import type { EventBridgeEvent } from 'aws-lambda';
import { handleSettlementAvailable } from '../lib/events/inbound-handlers.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';
import type { PayOutResult } from '../lib/settlement/settlement-service.js';

/** EventBridge rule target for `Settlement Available`: pays the settlement out at most once. */
export const handler = withRuntime(
  async (event: EventBridgeEvent<string, unknown>, runtime): Promise<PayOutResult['outcome']> => {
    const result = await handleSettlementAvailable(runtime.settlements, event);
    runtime.logger.info('settlement event handled', { outcome: result.outcome });
    return result.outcome;
  },
);
