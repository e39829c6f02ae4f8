import { forEachAtOnce } from '../shared/at-once.js';
import type { CommandAudit } from './command-audit.js';
import type { RecurrenceContext } from './context.js';
import { type OccurrenceRecord, type Recurrence, RecurrenceStatus } from './model.js';
import { type Occurrence, occurrences } from './rules.js';
import { type SkipOutcome, skipOccurrence, skipOverRecord } from './skip-occurrence.js';

/**
 * Passed occurrences are recorded a page at a time (one key-range read of their records per page), each page's
 * skips written this many at once. A command cut off by the API's deadline keeps the pages it wrote: the same
 * command again finds them recorded and goes on from there.
 */
const PASSED_PAGE = 100;
const PASSED_WRITES_AT_ONCE = 10;

/**
 * `skipOccurrence` starting from `record`, the occurrence's record as already read (undefined: none), so the
 * read is not repeated; read again only when it changed before the skip was written. The skip commits with the
 * command's audit event (`audit`), or after it.
 */
export async function skipAsRead(
  ctx: RecurrenceContext,
  recurrence: Recurrence,
  occurrence: Occurrence,
  now: Date,
  why: string,
  record: OccurrenceRecord | undefined,
  audit: CommandAudit,
): Promise<SkipOutcome> {
  return (
    (await skipOverRecord(ctx, recurrence, occurrence, now, why, record, audit)) ??
    (await skipOccurrence(ctx, recurrence, occurrence, now, why, audit))
  );
}

/**
 * Records every occurrence from the pointer up to now as skipped (with `why`), then points at the first
 * occurrence at or after now; completed when there is none.
 */
export async function restartFrom(
  ctx: RecurrenceContext,
  recurrence: Recurrence,
  now: Date,
  why: string,
  statusReason: string,
  audit: CommandAudit,
): Promise<Partial<Recurrence>> {
  await recordPassed(ctx, recurrence, now, why, audit);
  const next = occurrences(recurrence.rule, { fromIndex: recurrence.nextIndex, from: now, limit: 1 })[0];
  if (!next)
    return { status: RecurrenceStatus.Completed, statusReason: `${statusReason}; no occurrence left` };
  return {
    status: RecurrenceStatus.Active,
    statusReason,
    nextIndex: next.index,
    nextOccurrenceAt: next.at,
    nextLocalDate: next.localDate,
  };
}

/**
 * Records every occurrence from the pointer whose time is before now as skipped (`why`), however many: a page
 * of occurrences at a time, their records read by one key range, their skips written a few at once.
 */
export async function recordPassed(
  ctx: RecurrenceContext,
  recurrence: Recurrence,
  now: Date,
  why: string,
  audit: CommandAudit,
): Promise<void> {
  const before = new Date(now.getTime() - 1);
  for (let fromIndex = recurrence.nextIndex; ; ) {
    const page = occurrences(recurrence.rule, { fromIndex, to: before, limit: PASSED_PAGE });
    const [first, last] = [page[0], page.at(-1)];
    if (!first || !last) return;
    const records = await ctx.store.occurrencesFrom(recurrence.id, {
      from: first.localDate,
      to: last.localDate,
    });
    const recordOn = new Map(records.map((record) => [record.localDate, record]));
    await forEachAtOnce(page, PASSED_WRITES_AT_ONCE, (occurrence) =>
      skipAsRead(ctx, recurrence, occurrence, now, why, recordOn.get(occurrence.localDate), audit),
    );
    if (page.length < PASSED_PAGE) return;
    fromIndex = last.index + 1;
  }
}

/**
 * History entries of occurrences after now (materialised ahead of their time, held or skipped): every record
 * from the first occurrence at or after now to the newest, by key range. Records are keyed by local date, in
 * the order of their occurrences' times, so the range holds all of them however many future dates were skipped.
 */
export async function futureRecords(
  ctx: RecurrenceContext,
  recurrence: Recurrence,
  now: Date,
): Promise<OccurrenceRecord[]> {
  const first = occurrences(recurrence.rule, { from: now, limit: 1 })[0];
  if (!first) return [];
  const records = await ctx.store.occurrencesFrom(recurrence.id, { from: first.localDate });
  return records.filter((record) => record.at > now.toISOString());
}
