import type { ScheduledEvent } from 'aws-lambda';
import { runtimeFromProcessEnv } from '../lib/runtime/runtime.js';
import type { PollReport } from '../lib/settlement/settlement-service.js';

/** EventBridge schedule: pays SUCCESSFUL settlements no trigger has decided yet (a no-op when not configured). */
export async function handler(_event: ScheduledEvent): Promise<PollReport | { configured: false }> {
  const runtime = runtimeFromProcessEnv();
  if (!runtime.settlements) return { configured: false };
  const report = await runtime.settlements.poll();
  runtime.logger.info('settlement poll finished', { ...report });
  return report;
}
