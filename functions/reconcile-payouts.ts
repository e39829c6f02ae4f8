import type { Context, ScheduledEvent } from 'aws-lambda';
import { runReconcile } from '../lib/api/scheduled.js';
import type { ReconcileReport } from '../lib/payouts/engine/reconcile-payouts.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';

/** EventBridge schedule: decide payouts whose outcome is unknown, never by resending them. */
export const handler = withRuntime(
  async (_event: ScheduledEvent, runtime, context: Context): Promise<ReconcileReport> => {
    const report = await runReconcile(runtime.engine, context.getRemainingTimeInMillis());
    // The engine logs each decision and an INFO summary of a pass that decided something; this is the tick.
    runtime.logger.debug('reconciliation finished', { ...report });
    return report;
  },
);
