import {
  type EngineContext,
  type ListPage,
  type ListQuery,
  type Payout,
  PayoutStatus,
} from '../payouts/index.js';
import type { Transactions, WalletTransaction } from '../provider/index.js';
import type { AcceptedRefund, AcceptedRefunds } from '../refunds/index.js';
import type { Document } from '../shared/document-client.js';
import { isRefundRecord, payoutIdOfMarker } from './match.js';
import { addPayouts, emptyPayoutTotals, PAYOUT_TOTALS_MAX, type PayoutTotals } from './payout-totals.js';

/**
 * What a statement run reads of its day, one unit of work at a time within the run's budget (`Step`): the
 * provider's records, the payouts and refunds they name, and ours paid, accepted or created on the day. Each read
 * answers undefined (or `complete: false`, `cut: true`) when the budget's stop came first.
 */

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

/** Whether the run may start another unit, and a unit run to its deadline. */
export interface Step {
  canStart(): boolean;
  unit<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T>;
}
const READ_CONCURRENCY = 10;

/** Where the day's reads come from: the service's own options (StatementServiceOptions, service.ts, names each). */
export interface DaySources {
  readonly transactions: Pick<Transactions, 'listWallet'>;
  readonly engine: { readonly store: Pick<EngineContext['store'], 'get'> };
  readonly listing: { list(query: ListQuery): Promise<ListPage> };
  readonly refunds: Pick<AcceptedRefunds, 'get' | 'acceptedBetween'>;
  readonly pageSize?: number;
}

/** Every record of the day and just around it, page by page to the last page, the bound or the stop. */
export async function listDay(sources: DaySources, window: { from: string; to: string }, step: Step) {
  const from = Date.parse(window.from);
  const to = Date.parse(window.to);
  const byId = new Map<string, WalletTransaction>();
  let pagesRead = 0;
  let complete = false;
  for (let page = 1; page <= STATEMENT_MAX_PAGES && step.canStart(); page++) {
    const result = await step.unit((signal) =>
      sources.transactions.listWallet(
        {
          startDate: new Date(from - NEARBY_SLACK_MS).toISOString(),
          endDate: new Date(to + NEARBY_SLACK_MS).toISOString(),
          page,
          perPage: sources.pageSize ?? STATEMENT_PAGE_SIZE,
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

/** The payouts the records' markers name, read by id. */
export async function payoutsNamed(
  sources: DaySources,
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
      Promise.all(ids.slice(start, start + READ_CONCURRENCY).map((id) => sources.engine.store.get(id))),
    );
    for (const payout of found) if (payout) payouts.set(payout.id, payout);
  }
  return payouts;
}

/**
 * Our refunds the refund records name (their `reference` is the provider's refund id), read by it: one GetItem
 * each, READ_CONCURRENCY at a time. A refund record of no refund of ours is absent from the map.
 */
export async function refundsNamed(
  sources: DaySources,
  records: readonly WalletTransaction[],
  step: Step,
): Promise<Map<string, AcceptedRefund> | undefined> {
  const ids = [...new Set(records.filter(isRefundRecord).map((record) => record.reference))];
  const refunds = new Map<string, AcceptedRefund>();
  for (let start = 0; start < ids.length; start += READ_CONCURRENCY) {
    if (!step.canStart()) return undefined;
    const found = await step.unit((signal) =>
      Promise.all(
        ids.slice(start, start + READ_CONCURRENCY).map((id) => sources.refunds.get(id, { signal })),
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
export async function refundsAcceptedOn(
  sources: DaySources,
  window: { from: string; to: string },
  step: Step,
): Promise<AcceptedRefund[] | undefined> {
  const accepted: AcceptedRefund[] = [];
  let startKey: Document | undefined;
  do {
    if (!step.canStart()) return undefined;
    const page = await step.unit((signal) =>
      sources.refunds.acceptedBetween(window, {
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
export async function paidOn(
  sources: DaySources,
  window: { from: string; to: string },
  step: Step,
): Promise<Payout[] | undefined> {
  const from = Date.parse(window.from);
  const to = Date.parse(window.to);
  const paid: Payout[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAYOUT_PAGES; page++) {
    if (!step.canStart()) return undefined;
    const result = await step.unit(() =>
      sources.listing.list({
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
export async function countCreated(
  sources: DaySources,
  window: { from: string; to: string },
  step: Step,
): Promise<{ totals: PayoutTotals; cut: boolean }> {
  let totals = emptyPayoutTotals();
  let cursor: string | undefined;
  do {
    if (totals.count >= PAYOUT_TOTALS_MAX) return { totals: { ...totals, complete: false }, cut: false };
    if (!step.canStart()) return { totals: { ...totals, complete: false }, cut: true };
    const page = await step.unit(() =>
      sources.listing.list({
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
