import type { ScheduledEvent } from 'aws-lambda';
import { runReconcile } from '../lib/api/scheduled.js';
import type { ReconcileReport } from '../lib/payouts/engine/reconcile-payouts.js';
import { runtimeFromProcessEnv } from '../lib/runtime/runtime.js';

/** EventBridge schedule: decide payouts whose outcome is unknown, never by resending them. */
export async function handler(_event: ScheduledEvent): Promise<ReconcileReport> {
  const runtime = runtimeFromProcessEnv();
  const report = await runReconcile(runtime.engine);
  runtime.logger.info('reconciliation finished', { ...report });
  return report;
}
