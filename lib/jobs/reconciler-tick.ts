import type { ReconcileReport } from '../payouts/index.js';
import { type Runtime, reconcilingEngineOf } from '../runtime/index.js';
import { runReconcile } from './scheduled.js';

/**
 * Decides payouts whose outcome is unknown, never by resending them; `remainingMs` bounds the pass. Its look-ups
 * are paced with the workers' sends (reconcilingEngineOf).
 */
export async function reconcilePayouts(runtime: Runtime, remainingMs?: number): Promise<ReconcileReport> {
  const report = await runReconcile(reconcilingEngineOf(runtime), remainingMs);
  // The engine logs each decision and an INFO summary of a pass that decided something; this is the tick.
  runtime.logger.debug('reconciliation finished', { ...report });
  return report;
}
