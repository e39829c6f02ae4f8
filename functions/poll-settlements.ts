import type { ScheduledEvent } from 'aws-lambda';
import { withRuntime } from '../lib/runtime/lambda-handler.js';
import type { PollReport } from '../lib/settlement/settlement-service.js';
import { logTick } from '../lib/shared/logger.js';

/** EventBridge schedule: pays SUCCESSFUL settlements no trigger has decided yet (a no-op when not configured). */
export const handler = withRuntime(
  async (_event: ScheduledEvent, runtime): Promise<PollReport | { configured: false }> => {
    if (!runtime.settlements) return { configured: false };
    const report = await runtime.settlements.poll();
    // An idle poll says nothing at INFO; each decision is logged by the settlement service.
    logTick(runtime.logger, 'settlement poll finished', { ...report });
    return report;
  },
);
