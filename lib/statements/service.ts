import {
  type EngineContext,
  type FoundLook,
  type ListPage,
  type ListQuery,
  markPaidTwice,
  type Payout,
  PayoutStatus,
  receiptOfRecord,
  summarise,
} from '../payouts/index.js';
import type { Transactions, WalletTransaction } from '../provider/index.js';
import type { AcceptedRefund, AcceptedRefunds } from '../refunds/index.js';
import { withinDeadline } from '../shared/deadline.js';
import type { Document } from '../shared/document-client.js';
import { dayWindow } from './day.js';
import { type DayMatch, type FoundDouble, isRefundRecord, matchDay, payoutIdOfMarker } from './match.js';
import {
  isFinding,
  STATEMENT_LINE_KINDS,
  type StatementLine,
  type StatementLineKind,
  type StatementReport,
  type StatementRun,
  type Tally,
} from './model.js';
import { addPayouts, emptyPayoutTotals, PAYOUT_TOTALS_MAX, type PayoutTotals } from './payout-totals.js';
import { LINE_WRITE_BATCH, type StatementStore, statementKeys } from './store.js';

/** The provider's listing is read this many records a page, at most this many pages (20,000 records) a day. */
export const STATEMENT_PAGE_SIZE = 100;
export const STATEMENT_MAX_PAGES = 200;
/** Around the day, records read only to explain a payout of ours stamped across midnight. */
const NEARBY_SLACK_MS = 10 * 60_000;
/** Payouts paid on the day were created at most this long before it (scheduled ones included). */
const PAYOUT_LOOKBACK_MS = 40 * 86_400_000;
const PAYOUT_PAGE = 250;
/** Refunds accepted on the day, read this many a page (one unit each). */
const REFUND_PAGE = 250;
const MAX_PAYOUT_PAGES = 200;
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

/** Whether the run may start another unit, and a unit run to its deadline. */
interface Step {
  canStart(): boolean;
  unit<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T>;
}
const READ_CONCURRENCY = 10;

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

    const listed = await this.#listDay(window, step);
    let complete = listed.complete;
    let match: DayMatch = { lines: [], doubles: [] };
    let moved: string[] = [];
    let newFindings: StatementLine[] = [];
    let payoutTotals: PayoutTotals | undefined;
    if (complete) {
      const all = [...listed.records, ...listed.nearby];
      const named = await this.#payoutsNamed(all, step);
      const expected = named && (await this.#paidOn(window, step));
      const refunds = expected && (await this.#refundsNamed(all, step));
      const expectedRefunds = refunds && (await this.#refundsAcceptedOn(window, step));
      const counted = expectedRefunds && (await this.#countCreated(window, step));
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

  /** Every record of the day and just around it, page by page to the last page, the bound or the stop. */
  async #listDay(window: { from: string; to: string }, step: Step) {
    const from = Date.parse(window.from);
    const to = Date.parse(window.to);
    const byId = new Map<string, WalletTransaction>();
    let pagesRead = 0;
    let complete = false;
    for (let page = 1; page <= STATEMENT_MAX_PAGES && step.canStart(); page++) {
      const result = await step.unit((signal) =>
        this.options.transactions.listWallet(
          {
            startDate: new Date(from - NEARBY_SLACK_MS).toISOString(),
            endDate: new Date(to + NEARBY_SLACK_MS).toISOString(),
            page,
            perPage: this.options.pageSize ?? STATEMENT_PAGE_SIZE,
          },
          { signal },
        ),
      );
      pagesRead++;
      // Keyed by id: records arriving while the walk pages shift the pages, so one can show twice.
      for (const record of result.items) byId.set(record.id, record);
      if (result.items.length === 0 || page >= result.pagination.totalPages) {
        complete = true;
        break;
      }
    }
    const records: WalletTransaction[] = [];
    const nearby: WalletTransaction[] = [];
    for (const record of byId.values()) {
      const at = Date.parse(record.createdAt);
      (at >= from && at <= to ? records : nearby).push(record);
    }
    return { records, nearby, pagesRead, complete };
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

  /** The payouts the records' markers name, read by id. */
  async #payoutsNamed(
    records: readonly WalletTransaction[],
    step: Step,
  ): Promise<Map<string, Payout> | undefined> {
    const ids = [
      ...new Set(records.map((r) => payoutIdOfMarker(r.narration)).filter((id) => id !== undefined)),
    ];
    const payouts = new Map<string, Payout>();
    for (let start = 0; start < ids.length; start += READ_CONCURRENCY) {
      if (!step.canStart()) return undefined;
      const found = await step.unit(() =>
        Promise.all(
          ids.slice(start, start + READ_CONCURRENCY).map((id) => this.options.engine.store.get(id)),
        ),
      );
      for (const payout of found) if (payout) payouts.set(payout.id, payout);
    }
    return payouts;
  }

  /**
   * Our refunds the refund records name (their `reference` is the provider's refund id), read by it: one GetItem
   * each, READ_CONCURRENCY at a time. A refund record of no refund of ours is absent from the map.
   */
  async #refundsNamed(
    records: readonly WalletTransaction[],
    step: Step,
  ): Promise<Map<string, AcceptedRefund> | undefined> {
    const ids = [...new Set(records.filter(isRefundRecord).map((record) => record.reference))];
    const refunds = new Map<string, AcceptedRefund>();
    for (let start = 0; start < ids.length; start += READ_CONCURRENCY) {
      if (!step.canStart()) return undefined;
      const found = await step.unit((signal) =>
        Promise.all(
          ids.slice(start, start + READ_CONCURRENCY).map((id) => this.options.refunds.get(id, { signal })),
        ),
      );
      for (const refund of found) if (refund) refunds.set(refund.providerRefundId, refund);
    }
    return refunds;
  }

  /**
   * The refunds the provider accepted on the day by answering our request (`acceptedAt` in the day's window): a
   * Query of exactly that span of their index, a page a unit. The provider stamps its record just before it
   * answers, so a refund accepted just after midnight has its record among the nearby ones.
   */
  async #refundsAcceptedOn(
    window: { from: string; to: string },
    step: Step,
  ): Promise<AcceptedRefund[] | undefined> {
    const accepted: AcceptedRefund[] = [];
    let startKey: Document | undefined;
    do {
      if (!step.canStart()) return undefined;
      const page = await step.unit((signal) =>
        this.options.refunds.acceptedBetween(window, {
          limit: REFUND_PAGE,
          signal,
          ...(startKey && { startKey }),
        }),
      );
      accepted.push(...page.items);
      startKey = page.nextKey;
    } while (startKey);
    return accepted;
  }

  /** The payouts we hold as succeeded whose payment (the receipt's `paidAt`) falls on the day. */
  async #paidOn(window: { from: string; to: string }, step: Step): Promise<Payout[] | undefined> {
    const from = Date.parse(window.from);
    const to = Date.parse(window.to);
    const paid: Payout[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAYOUT_PAGES; page++) {
      if (!step.canStart()) return undefined;
      const result = await step.unit(() =>
        this.options.listing.list({
          status: PayoutStatus.Succeeded,
          from: new Date(from - PAYOUT_LOOKBACK_MS).toISOString(),
          to: window.to,
          limit: PAYOUT_PAGE,
          ...(cursor && { cursor }),
        }),
      );
      for (const payout of result.items) {
        const at = Date.parse(payout.receipt?.paidAt ?? payout.updatedAt);
        if (at >= from && at <= to) paid.push(payout);
      }
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return paid;
  }

  /**
   * Our payouts created on the day (the month index, newest first), counted by status and by type a page at a
   * time, to PAYOUT_TOTALS_MAX. `cut` when the run's stop came first: the report is then incomplete and redone.
   */
  async #countCreated(
    window: { from: string; to: string },
    step: Step,
  ): Promise<{ totals: PayoutTotals; cut: boolean }> {
    let totals = emptyPayoutTotals();
    let cursor: string | undefined;
    do {
      if (totals.count >= PAYOUT_TOTALS_MAX) return { totals: { ...totals, complete: false }, cut: false };
      if (!step.canStart()) return { totals: { ...totals, complete: false }, cut: true };
      const page = await step.unit(() =>
        this.options.listing.list({
          from: window.from,
          to: window.to,
          limit: Math.min(PAYOUT_PAGE, PAYOUT_TOTALS_MAX - totals.count),
          ...(cursor && { cursor }),
        }),
      );
      totals = addPayouts(totals, page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return { totals, cut: false };
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

function emptyTally(): { count: number; amountKobo: number } {
  return { count: 0, amountKobo: 0 };
}

/** The report of a day from its match: tallies per kind, the provider's totals by type and status. */
function reportOf(
  date: string,
  timeZone: string,
  window: { from: string; to: string },
  listed: { records: readonly WalletTransaction[]; pagesRead: number; complete: boolean },
  match: DayMatch,
  generatedAt: string,
  history: {
    payoutTotals?: PayoutTotals;
    movedToReview: readonly string[];
    runs: readonly StatementRun[];
  },
): StatementReport {
  const byKind = Object.fromEntries(STATEMENT_LINE_KINDS.map((kind) => [kind, emptyTally()])) as Record<
    StatementLineKind,
    { count: number; amountKobo: number }
  >;
  for (const line of match.lines) {
    byKind[line.kind].count++;
    byKind[line.kind].amountKobo += line.amountKobo;
  }
  const byType: Record<string, Tally & { chargesKobo: number }> = {};
  const byStatus: Record<string, { count: number; amountKobo: number }> = {};
  const lineOf = new Map<string, StatementLine>();
  for (const line of match.lines) if (line.transactionId) lineOf.set(line.transactionId, line);
  for (const record of listed.records) {
    const line = lineOf.get(record.id);
    const amountKobo = line?.amountKobo ?? 0;
    const type = byType[record.type] ?? { count: 0, amountKobo: 0, chargesKobo: 0 };
    byType[record.type] = {
      count: type.count + 1,
      amountKobo: type.amountKobo + amountKobo,
      chargesKobo: type.chargesKobo + (line?.chargesKobo ?? 0),
    };
    const status = byStatus[record.status] ?? emptyTally();
    byStatus[record.status] = { count: status.count + 1, amountKobo: status.amountKobo + amountKobo };
  }
  return {
    date,
    timeZone,
    window,
    completeness: listed.complete ? 'complete' : 'incomplete',
    pagesRead: listed.pagesRead,
    byKind,
    findings: match.lines.filter((line) => isFinding(line.kind)).length,
    providerTotals: { byType, byStatus },
    ...(history.payoutTotals && { payoutTotals: history.payoutTotals }),
    movedToReview: history.movedToReview,
    generatedAt,
    runs: history.runs,
  };
}
