import type { Context, ScheduledEvent } from 'aws-lambda';
import { runDueSweep } from '../lib/api/scheduled.js';
import type { SweepReport } from '../lib/payouts/engine/sweep.js';
import type { RecurrenceSweepReport } from '../lib/recurrence/materialise.js';
import type { RecurrenceService } from '../lib/recurrence/recurrence-service.js';
import { recurrenceServiceFrom } from '../lib/recurrence/wiring.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';

let recurrences: RecurrenceService | undefined;

/**
 * EventBridge schedule (every minute): materialise due occurrences of recurring payouts, then release due
 * scheduled payouts and submit pending ones, stopping in time to leave the rest to the next tick.
 */
export const handler = withRuntime(
  async (
    _event: ScheduledEvent,
    runtime,
    context: Context,
  ): Promise<{ recurrences: RecurrenceSweepReport; payouts: SweepReport }> => {
    recurrences ??= recurrenceServiceFrom(runtime);
    const report = await runDueSweep(
      { engine: runtime.engine, recurrences },
      context.getRemainingTimeInMillis(),
    );
    runtime.logger.info('sweep finished', { recurrences: report.recurrences, payouts: report.payouts });
    return report;
  },
);
