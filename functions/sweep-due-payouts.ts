import type { Context, ScheduledEvent } from 'aws-lambda';
import { runSweep } from '../lib/api/scheduled.js';
import type { SweepReport } from '../lib/payouts/engine/sweep.js';
import { runtimeFromProcessEnv } from '../lib/runtime/runtime.js';

/** EventBridge schedule: release due scheduled payouts and submit pending ones. */
export async function handler(_event: ScheduledEvent, context: Context): Promise<SweepReport> {
  const runtime = runtimeFromProcessEnv();
  const report = await runSweep(runtime.engine, context.getRemainingTimeInMillis());
  runtime.logger.info('sweep finished', { ...report });
  return report;
}
