import { type Runtime, statementStoreOf, statementsOf } from '../runtime/index.js';
import { logTick } from '../shared/logger.js';
import { dueStatementDate, STATEMENT_UNIT_DEADLINE_MS, type StatementReport } from '../statements/index.js';

/**
 * The schedule's run starts no unit of work with less than this left: one unit and the finishing writes (the
 * report's read and put), each abandoned at STATEMENT_UNIT_DEADLINE_MS (test/infra/handler-limits.test.ts).
 */
export const STATEMENT_STOP_STARTING_BEFORE_DEADLINE_MS = 55_000;

/** Who the schedule's runs are recorded as. */
export const STATEMENT_SCHEDULE_ACTOR = 'system:statements';

/**
 * One tick of the statement schedule (hourly): once the stage's statement time (STATEMENT_TIME, default 06:00) has
 * passed in its zone (STATEMENT_TIME_ZONE, default Africa/Lagos), the day before is reconciled, unless a run of the
 * schedule already reported it. Ticking hourly rather than once at the time means a day missed by an outage or a
 * failed run is reported at the next tick, not never; a person re-runs a day with `POST /statements/{date}/run`.
 * A report left `incomplete` (a run cut short by its deadline, the schedule's or a person's) is redone at each tick
 * until one completes it. With `remainingMs` (what the invocation has left) the run stops starting work in time.
 */
export async function runStatementTick(
  runtime: Runtime,
  remainingMs?: number,
  now: Date = runtime.payouts.ctx.clock.now(),
): Promise<{ date?: string; ran: boolean; report?: StatementReport }> {
  const date = dueStatementDate(now, runtime.env.STATEMENT_TIME_ZONE, runtime.env.STATEMENT_TIME);
  if (!date) return { ran: false };
  const existing = (await statementStoreOf(runtime).getReport(date))?.report;
  const reported =
    existing?.completeness === 'complete' && existing.runs.some((run) => run.by === STATEMENT_SCHEDULE_ACTOR);
  if (reported) return { date, ran: false };
  const report = await statementsOf(runtime).run(
    date,
    STATEMENT_SCHEDULE_ACTOR,
    remainingMs === undefined
      ? undefined
      : {
          stopStartingAt: Date.now() + remainingMs - STATEMENT_STOP_STARTING_BEFORE_DEADLINE_MS,
          unitDeadlineMs: STATEMENT_UNIT_DEADLINE_MS,
        },
  );
  logTick(runtime.logger, 'statement schedule ran', { date, findings: report.findings });
  return { date, ran: true, report };
}
