import type { ReconcileReport } from '../payouts/engine/reconcile-payouts.js';
import type { SweepReport } from '../payouts/engine/sweep.js';
import type { PayoutEngine } from '../payouts/payout-engine.js';

/** Start no new payout this long before the invocation's deadline, so none is cut off mid-call. */
export const STOP_STARTING_BEFORE_DEADLINE_MS = 20_000;

/**
 * One tick of the due-payout sweeper, as the EventBridge schedule (AWS) and the local scheduler run it.
 * `remainingMs` is what the invocation has left (Lambda's `getRemainingTimeInMillis()`).
 */
export function runSweep(engine: PayoutEngine, remainingMs: number, now = Date.now()): Promise<SweepReport> {
  return engine.sweep({ stopStartingAt: now + remainingMs - STOP_STARTING_BEFORE_DEADLINE_MS });
}

/** One reconciliation pass, as the EventBridge schedule and the local scheduler run it. */
export function runReconcile(engine: PayoutEngine): Promise<ReconcileReport> {
  return engine.reconcile();
}
