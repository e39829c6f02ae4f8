import type { Payout, PayoutStatus } from '../payouts/index.js';
import { getRecurrence } from './command-loop.js';
import type { RecurrenceContext } from './context.js';
import {
  type OccurrenceRecord,
  type Recurrence,
  RecurrenceStatus,
  type RecurrenceTrailEvent,
} from './model.js';
import { type Occurrence, occurrences } from './rules.js';

/** A recurrence as ops see it: the rule, what comes next, and what became of each past occurrence. */
export interface RecurrenceView {
  readonly recurrence: Recurrence;
  readonly upcoming: readonly (Occurrence & { readonly skipped: boolean })[];
  readonly history: readonly HistoryEntry[];
  /** Where older history goes on (`history(id, { before })`); absent when `history` is all of it. */
  readonly historyBefore?: string;
  /**
   * Who created, paused, resumed, cancelled or skipped it, and why; oldest first. `committed: false` marks the
   * event of a command that changed occurrence records but did not take effect (model.ts, RecurrenceTrailEvent).
   */
  readonly audit: readonly RecurrenceTrailEvent[];
}

/** What became of one occurrence, with its payout's status now. */
export type HistoryEntry = OccurrenceRecord & { readonly payoutStatus?: PayoutStatus };

/** One page of a recurring payout's history, newest first. */
export interface HistoryPage {
  readonly entries: readonly HistoryEntry[];
  /** The local date the next (older) page starts before; absent on the last page. */
  readonly before?: string;
}

/** A recurrence as ops see it (RecurrenceService.view): the rule, its next occurrences, its history and audit. */
export async function viewRecurrence(ctx: RecurrenceContext, id: string): Promise<RecurrenceView> {
  const recurrence = await getRecurrence(ctx, id);
  const upcoming =
    recurrence.status === RecurrenceStatus.Active || recurrence.status === RecurrenceStatus.PendingApproval
      ? occurrences(recurrence.rule, {
          fromIndex: recurrence.nextIndex,
          limit: ctx.config.upcomingShown,
        })
      : [];
  const [history, audit] = await Promise.all([
    historyPage(ctx, id, { limit: ctx.config.historyShown }),
    ctx.store.audit(id),
  ]);
  return {
    recurrence,
    upcoming: upcoming.map((o) => ({ ...o, skipped: recurrence.skippedDates.includes(o.localDate) })),
    history: history.entries,
    ...(history.before && { historyBefore: history.before }),
    audit,
  };
}

/** The whole history, page by page, newest first: each page ends where `before` says the next one starts. */
export async function recurrenceHistory(
  ctx: RecurrenceContext,
  id: string,
  query: { limit: number; before?: string },
): Promise<HistoryPage> {
  await getRecurrence(ctx, id);
  return historyPage(ctx, id, query);
}

/** One page of the history, newest first, each entry with its payout's status now. */
async function historyPage(
  ctx: RecurrenceContext,
  id: string,
  query: { limit: number; before?: string },
): Promise<HistoryPage> {
  const records = await ctx.store.occurrences(id, query.limit + 1, query.before);
  const shown = records.slice(0, query.limit);
  const entries = await Promise.all(
    shown.map(async (record) => {
      const payout: Payout | undefined = record.payoutId ? await ctx.payouts.get(record.payoutId) : undefined;
      return { ...record, ...(payout && { payoutStatus: payout.status }) };
    }),
  );
  const last = shown.at(-1);
  return { entries, ...(records.length > query.limit && last && { before: last.localDate }) };
}
