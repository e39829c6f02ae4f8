import {
  type EngineContext,
  type FoundLook,
  type ListPage,
  type ListQuery,
  markPaidTwice,
  PayoutStatus,
  receiptOfRecord,
  summarise,
} from '../payouts/index.js';
import type { Transactions } from '../provider/index.js';
import type { AcceptedRefunds } from '../refunds/index.js';
import { withinDeadline } from '../shared/deadline.js';
import type { Document } from '../shared/document-client.js';
import { dayWindow } from './day.js';
import {
  countCreated,
  listDay,
  paidOn,
  payoutsNamed,
  refundsAcceptedOn,
  refundsNamed,
  type Step,
} from './day-reads.js';
import { type DayMatch, type FoundDouble, matchDay } from './match.js';
import { isFinding, type StatementLine, type StatementReport } from './model.js';
import type { PayoutTotals } from './payout-totals.js';
import { reportOf } from './report.js';
import { LINE_WRITE_BATCH, type StatementStore, statementKeys } from './store.js';

const RUNS_KEPT = 20;

/**
 * Each unit of a run (a page of the provider's listing, ten payout reads, a page of our listing, ten refund
 * reads, a page of the day's accepted refunds, a double's transition, a page of the lines already written, a
 * BatchWriteItem of lines, the report's read and its put) is abandoned after this long by default (the
 * schedule's); the ops API's re-run passes a shorter one.
 */
export const STATEMENT_UNIT_DEADLINE_MS = 15_000;

/** When a run stops starting work (epoch ms, read with `now`, default Date.now) and each unit's deadline. */
export interface StatementBudget {
  readonly stopStartingAt: number;
  readonly unitDeadlineMs?: number;
  readonly now?: () => number;
}

export interface StatementServiceOptions {
  readonly store: StatementStore;
  /** The provider's wallet transactions (GET /transaction/wallet). */
  readonly transactions: Pick<Transactions, 'listWallet'>;
  /** The engine's context: the payouts' store, clock, logger, metrics, and the transition a double takes. */
  readonly engine: EngineContext;
  /** Our payouts by status and creation time (the ops API's listing). */
  readonly listing: { list(query: ListQuery): Promise<ListPage> };
  /** Our refunds the provider accepted: by its refund id (a refund record's reference), and by when. */
  readonly refunds: Pick<AcceptedRefunds, 'get' | 'acceptedBetween'>;
  /** The zone whose calendar days the statements cover (the provider's business day: Africa/Lagos). */
  readonly timeZone: string;
  /** Records per page of the provider's listing (default STATEMENT_PAGE_SIZE, the provider's maximum). */
  readonly pageSize?: number;
}

/**
 * The daily statement: the provider's wallet records of one day against our payouts and refunds, both ways
 * (docs/statements.md).
 * A run is idempotent: it reads the day again, writes the same lines, raises nothing for a finding an earlier run
 * reported, and moves a payout paid twice to `needs_review` only once (the engine's own transition decides).
 */
export class StatementService {
  constructor(private readonly options: StatementServiceOptions) {}

  get timeZone(): string {
    return this.options.timeZone;
  }

  /**
   * Reconciles `date` and stores its report; `by` is who ran it (`system:statements` for the schedule). With a
   * `budget`, no unit of work (a page of the listing, a batch of reads or of line writes, a transition) starts
   * past `stopStartingAt`, and each is abandoned at `unitDeadlineMs`: cut short, the report is stored
   * `incomplete` (a walk cut short proves nothing, so it writes no line) and the next run redoes the day.
   *
   * @example const report = await statements.run('2026-03-01', 'system:statements');
   */
  async run(date: string, by: string, budget?: StatementBudget): Promise<StatementReport> {
    const { engine, store } = this.options;
    const runAt = engine.clock.now().toISOString();
    const window = dayWindow(date, this.options.timeZone);
    const now = budget?.now ?? Date.now;
    const unit = <T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> =>
      withinDeadline(budget?.unitDeadlineMs ?? STATEMENT_UNIT_DEADLINE_MS, work);
    const step: Step = { canStart: () => !budget || now() < budget.stopStartingAt, unit };

    const listed = await listDay(this.options, window, step);
    let complete = listed.complete;
    let match: DayMatch = { lines: [], doubles: [] };
    let moved: string[] = [];
    let newFindings: StatementLine[] = [];
    let payoutTotals: PayoutTotals | undefined;
    if (complete) {
      const all = [...listed.records, ...listed.nearby];
      const named = await payoutsNamed(this.options, all, step);
      const expected = named && (await paidOn(this.options, window, step));
      const refunds = expected && (await refundsNamed(this.options, all, step));
      const expectedRefunds = refunds && (await refundsAcceptedOn(this.options, window, step));
      const counted = expectedRefunds && (await countCreated(this.options, window, step));
      payoutTotals = counted?.totals;
      if (named && expected && refunds && expectedRefunds && counted && !counted.cut) {
        for (const payout of expected) named.set(payout.id, payout);
        match = matchDay({
          records: listed.records,
          nearby: listed.nearby,
          payouts: named,
          expected,
          refunds,
          expectedRefunds,
        });
        const reviewed = await this.#reviewDoubles(match.doubles, step);
        moved = reviewed.moved;
        const written = reviewed.complete && (await this.#writeLines(date, match.lines, runAt, step));
        complete = reviewed.complete && written !== false;
        newFindings = written ? written.filter((line) => isFinding(line.kind)) : [];
      } else {
        complete = false;
      }
    }
    for (const line of newFindings) {
      // Once without a dimension (the alarm's metric) and once by kind (what the finding is).
      engine.metrics.count('StatementMismatch', 1);
      engine.metrics.count('StatementMismatch', 1, { kind: line.kind });
      engine.logger.error('statement mismatch', {
        date,
        kind: line.kind,
        key: line.key,
        ...(line.payoutId && { payoutId: line.payoutId }),
        ...(line.refundId && { refundId: line.refundId }),
        amountKobo: line.amountKobo,
        detail: line.detail,
      });
    }
    // The finishing writes: the report's read and its put, each a unit, started whatever the budget says.
    const previous = (await unit(() => store.getReport(date)))?.report;
    const report = reportOf(date, this.options.timeZone, window, { ...listed, complete }, match, runAt, {
      ...(payoutTotals && { payoutTotals }),
      movedToReview: [...new Set([...(previous?.movedToReview ?? []), ...moved])],
      runs: [{ by, at: runAt, newFindings: newFindings.length }, ...(previous?.runs ?? [])].slice(
        0,
        RUNS_KEPT,
      ),
    });
    await unit(() => store.putReport(report, runAt));
    engine.logger.info('statement reconciled', {
      date,
      by,
      findings: report.findings,
      newFindings: newFindings.length,
      completeness: report.completeness,
    });
    return report;
  }

  /**
   * Writes the lines, LINE_WRITE_BATCH a BatchWriteItem, after reading which the day already has; answers the
   * lines no earlier run had written (the run's new findings among them), or false when the stop came first.
   */
  async #writeLines(
    date: string,
    lines: readonly StatementLine[],
    runAt: string,
    step: Step,
  ): Promise<StatementLine[] | false> {
    const { store } = this.options;
    const seen = new Map<string, string>();
    let startKey: Document | undefined;
    do {
      if (!step.canStart()) return false;
      const page = await step.unit((signal) =>
        store.seenLines(date, { ...(startKey && { startKey }), signal }),
      );
      for (const [sk, firstSeenAt] of page.seen) seen.set(sk, firstSeenAt);
      startKey = page.nextKey;
    } while (startKey);
    const fresh = lines.filter((line) => !seen.has(statementKeys.line(line.kind, line.key)));
    for (let start = 0; start < lines.length; start += LINE_WRITE_BATCH) {
      if (!step.canStart()) return false;
      const batch = lines.slice(start, start + LINE_WRITE_BATCH);
      await step.unit((signal) => store.putLines(date, batch, runAt, seen, { signal }));
    }
    return fresh;
  }

  /**
   * Hands each payout found paid twice to a person through the engine's own transition, once: a payout already
   * `needs_review` with these records named (by an earlier run, or by the engine's watch) is left as it is.
   */
  async #reviewDoubles(
    doubles: readonly FoundDouble[],
    step: Step,
  ): Promise<{ moved: string[]; complete: boolean }> {
    const moved: string[] = [];
    for (const { payout, extra } of doubles) {
      const known = payout.paidTwice?.transactionIds ?? [];
      if (payout.status !== PayoutStatus.Succeeded) continue;
      if (extra.every(({ record }) => known.includes(record.id))) continue;
      const found: FoundLook[] = extra.map(({ record, attempt }) => ({
        attempt: {
          number: attempt,
          startedAt:
            payout.watchedAttempts?.find((a) => a.number === attempt)?.startedAt ??
            payout.attempt?.startedAt ??
            payout.createdAt,
        },
        outcome: { kind: 'found', receipt: receiptOfRecord(record), record: summarise(record) },
      }));
      if (!step.canStart()) return { moved, complete: false };
      const after = await step.unit(() => markPaidTwice(this.options.engine, payout, found));
      if (after?.status === PayoutStatus.NeedsReview) moved.push(payout.id);
    }
    return { moved, complete: true };
  }
}
