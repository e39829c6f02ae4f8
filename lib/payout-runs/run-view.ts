import { type Payout, PayoutStatus, TERMINAL_STATUSES } from '../payouts/index.js';
import { forEachAtOnce } from '../shared/at-once.js';
import type { RunPayouts } from './cancel-rows.js';
import { type PayoutRun, type RunRow, RunState, type RunStatus } from './model.js';

/** Counts of a run's rows by their payout's status (`not_created`: no payout yet; `refused`: none will be). */
export type RowStatus = PayoutStatus | 'not_created' | 'refused' | 'cancelled_unsent';

/** A run with its progress, as `GET /payout-runs/{id}` shows it. */
export interface RunView {
  readonly run: PayoutRun;
  readonly status: RunStatus;
  readonly counts: Partial<Record<RowStatus, number>>;
  readonly sentKobo: number;
  readonly failedKobo: number;
  readonly percentDone: number;
  /** Seconds until every row is sent at the provider's rate; absent when done or the rate is unknown. */
  readonly etaSeconds?: number;
}

/** One row with its payout, for the run's payouts page and results file. */
export interface RowResult {
  readonly row: RunRow;
  readonly status: RowStatus;
  readonly payout?: Payout;
}

/** Payouts read at once for a run's progress. */
const READS_AT_ONCE = 16;

/** Each row with its payout (read through the engine, a few at once), in the order given. */
export async function rowResultsOf(
  payouts: Pick<RunPayouts, 'get'>,
  run: PayoutRun,
  rows: readonly RunRow[],
): Promise<RowResult[]> {
  const results: RowResult[] = rows.map((row) => ({ row, status: 'not_created' }));
  await forEachAtOnce(
    results.map((_, i) => i),
    READS_AT_ONCE,
    async (i) => {
      const row = rows[i] as RunRow;
      if (row.failure) results[i] = { row, status: 'refused' };
      else if (row.payoutId) {
        const payout = await payouts.get(row.payoutId);
        results[i] = payout ? { row, status: payout.status, payout } : { row, status: 'not_created' };
      } else if (run.state === RunState.Cancelled) results[i] = { row, status: 'cancelled_unsent' };
    },
  );
  return results;
}

/** A run's progress off its rows' results: counts, kobo sent and failed, percent done, and the ETA at `ratePerSecond`. */
export function runViewOf(
  run: PayoutRun,
  results: readonly RowResult[],
  ratePerSecond: number | undefined,
): RunView {
  const counts: Partial<Record<RowStatus, number>> = {};
  let sentKobo = 0;
  let failedKobo = 0;
  let done = 0;
  let attention = 0;
  for (const { row, status } of results) {
    counts[status] = (counts[status] ?? 0) + 1;
    if (status === PayoutStatus.Succeeded) sentKobo += row.amountKobo;
    if (status === PayoutStatus.Failed || status === 'refused' || status === PayoutStatus.Missed) {
      failedKobo += row.amountKobo;
      attention++;
    }
    if (status === PayoutStatus.NeedsReview || status === PayoutStatus.Unknown) attention++;
    if (
      status === 'refused' ||
      status === 'cancelled_unsent' ||
      (status !== 'not_created' && TERMINAL_STATUSES.has(status))
    )
      done++;
  }
  const percentDone = run.count === 0 ? 100 : Math.floor((done * 100) / run.count);
  const left = run.count - done;
  // Rows a person must look at (needs_review, unknown) are not done; when only they are left, the run needs attention.
  const waitingOnPeople = (counts.needs_review ?? 0) + (counts.unknown ?? 0);
  // A run's end is recorded once (run-ends.ts); until then a materialised run's status is read off its payouts.
  const status: RunStatus =
    run.state !== RunState.Materialised
      ? run.state
      : done + waitingOnPeople < run.count
        ? 'sending'
        : attention > 0
          ? 'needs_attention'
          : 'completed';
  return {
    run,
    status,
    counts,
    sentKobo,
    failedKobo,
    percentDone,
    ...(ratePerSecond !== undefined &&
      left > 0 &&
      run.state !== RunState.Cancelled && { etaSeconds: Math.ceil(left / ratePerSecond) }),
  };
}
