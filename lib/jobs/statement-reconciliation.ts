import type { Runtime } from '../runtime/runtime.js';
import { statementStoreOf, statementsOf } from '../runtime/statements.js';
import { logTick } from '../shared/logger.js';
import { dueStatementDate, type StatementReport } from '../statements/index.js';

/** Who the schedule's runs are recorded as. */
export const STATEMENT_SCHEDULE_ACTOR = 'system:statements';

/**
 * One tick of the statement schedule (hourly): once the stage's statement time (STATEMENT_TIME, default 06:00) has
 * passed in its zone (STATEMENT_TIME_ZONE, default Africa/Lagos), the day before is reconciled, unless a run of the
 * schedule already reported it. Ticking hourly rather than once at the time means a day missed by an outage or a
 * failed run is reported at the next tick, not never; a person re-runs a day with `POST /statements/{date}/run`.
 */
export async function runStatementTick(
  runtime: Runtime,
  now: Date = runtime.payouts.ctx.clock.now(),
): Promise<{ date?: string; ran: boolean; report?: StatementReport }> {
  const date = dueStatementDate(now, runtime.env.STATEMENT_TIME_ZONE, runtime.env.STATEMENT_TIME);
  if (!date) return { ran: false };
  const existing = await statementStoreOf(runtime).getReport(date);
  if (existing?.report.runs.some((run) => run.by === STATEMENT_SCHEDULE_ACTOR)) return { date, ran: false };
  const report = await statementsOf(runtime).run(date, STATEMENT_SCHEDULE_ACTOR);
  logTick(runtime.logger, 'statement schedule ran', { date, findings: report.findings });
  return { date, ran: true, report };
}
