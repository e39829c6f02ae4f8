import type { ScheduledEvent } from 'aws-lambda';
import { withRuntime } from '../lib/runtime/lambda-handler.js';
import type { PollReport } from '../lib/settlement/settlement-service.js';

/** EventBridge schedule: pays SUCCESSFUL settlements no trigger has decided yet (a no-op when not configured). */
export const handler = withRuntime(
  async (_event: ScheduledEvent, runtime): Promise<PollReport | { configured: false }> => {
    if (!runtime.settlements) return { configured: false };
    const report = await runtime.settlements.poll();
    const decided = report.paid + report.skipped + report.deferred + report.failed;
    // An idle poll says nothing at INFO; each decision is logged by the settlement service.
    if (decided > 0) runtime.logger.info('settlement poll finished', { ...report });
    else runtime.logger.debug('settlement poll finished', { ...report });
    return report;
  },
);
