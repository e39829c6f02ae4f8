import type { ReconcileReport } from '../payouts/engine/reconcile-payouts.js';
import type { SweepReport } from '../payouts/engine/sweep.js';
import type { PayoutEngine } from '../payouts/payout-engine.js';
import type { SyncStatus } from '../provider-schedules/model.js';
import type {
  ProviderScheduleService,
  ProviderScheduleSource,
} from '../provider-schedules/provider-schedule-service.js';
import type { RecurrenceSweepReport } from '../recurrence/materialise.js';
import type { RecurrenceService } from '../recurrence/recurrence-service.js';
import type { RefundService } from '../refunds/refund-service.js';

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
export function runReconcile(
  engine: PayoutEngine,
  remainingMs?: number,
  now = Date.now(),
): Promise<ReconcileReport> {
  return engine.reconcile(
    remainingMs === undefined ? {} : { stopStartingAt: now + remainingMs - STOP_STARTING_BEFORE_DEADLINE_MS },
  );
}

/**
 * One tick of the every-minute schedule: recurring payouts materialise their due occurrences first (as
 * `scheduled` payouts), then the engine releases and submits what is due. Both stop starting new work
 * `STOP_STARTING_BEFORE_DEADLINE_MS` before the deadline and leave the rest to the next tick.
 */
export async function runDueSweep(
  parts: { engine: PayoutEngine; recurrences: RecurrenceService; refunds: RefundService },
  remainingMs: number,
  now = Date.now(),
): Promise<{
  recurrences: RecurrenceSweepReport;
  payouts: SweepReport;
  refunds: Awaited<ReturnType<RefundService['sweep']>>;
}> {
  const stopStartingAt = now + remainingMs - STOP_STARTING_BEFORE_DEADLINE_MS;
  const recurrences = await parts.recurrences.sweep({ stopStartingAt });
  const payouts = await parts.engine.sweep({ stopStartingAt });
  // Refunds recorded but never sent (a crash, the provider unreachable) go out here, after a conditional claim.
  const refunds = await parts.refunds.sweep({ stopStartingAt });
  return { recurrences, payouts, refunds };
}

/** One sync of the provider's own scheduled and recurrent payouts into the ops read view. */
export function runProviderScheduleSync(
  service: ProviderScheduleService,
  source: ProviderScheduleSource,
): Promise<SyncStatus> {
  return service.sync(source);
}
