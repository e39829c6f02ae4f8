import type { EventBridgeEvent } from 'aws-lambda';
import { handleSettlementAvailable } from '../lib/events/inbound-handlers.js';
import { runtimeFromProcessEnv } from '../lib/runtime/runtime.js';
import type { PayOutResult } from '../lib/settlement/settlement-service.js';

/** EventBridge rule target for `Settlement Available`: pays the settlement out at most once. */
export async function handler(event: EventBridgeEvent<string, unknown>): Promise<PayOutResult['outcome']> {
  const runtime = runtimeFromProcessEnv();
  const result = await handleSettlementAvailable(runtime.settlements, event);
  runtime.logger.info('settlement event handled', { outcome: result.outcome });
  return result.outcome;
}
