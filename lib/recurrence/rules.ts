/**
 * Recurrence rules as pure functions: which local calendar dates a rule pays on, and the UTC instant of
 * each. No AWS, no HTTP, no date library: calendar arithmetic on civil dates, `wallClockIn` for time zones
 * (the time-zone database through Intl, or plain arithmetic for the fixed-offset zones it lists).
 */
import { wallClockIn } from '../shared/wall-clock.js';

export const RecurrenceInterval = { Daily: 'daily', Weekly: 'weekly', Monthly: 'monthly' } as const;
export type RecurrenceInterval = (typeof RecurrenceInterval)[keyof typeof RecurrenceInterval];

export interface RecurrenceRule {
  readonly interval: RecurrenceInterval;
  /** Every n-th day, week or month; at least 1. */
  readonly every: number;
  /** First local date (`YYYY-MM-DD`); for monthly rules its day is the anchor day. */
  readonly startDate: string;
  /** Last local date an occurrence may fall on, inclusive. */
  readonly endDate?: string;
  /** At most this many occurrences, counted from `startDate`. */
  readonly maxOccurrences?: number;
  /** Local wall-clock time `HH:MM` (24 h). */
  readonly timeOfDay: string;
  /** IANA time zone the dates and the time of day are read in. */
  readonly timeZone: string;
}

export interface Occurrence {
  /** 0-based position in the rule, counted from `startDate`. */
  readonly index: number;
  /** The local calendar date, `YYYY-MM-DD`: part of the occurrence's idempotency key. */
  readonly localDate: string;
  /** The UTC instant, ISO 8601. */
  readonly at: string;
}

export interface OccurrenceWindow {
  /** Only occurrences at or after this instant. */
  readonly from?: Date;
  /** Only occurrences at or before this instant. */
  readonly to?: Date;
  /** At most this many (default 100). */
  readonly limit?: number;
  /** Start counting at this index (e.g. a stored next-occurrence pointer). */
  readonly fromIndex?: number;
}

const DAY_MS = 86_400_000;

/**
 * The dates a rule may name (`startDate`, `endDate`) and its occurrences may fall on, inclusive. Every date in
 * the range has a four-digit year, which the occurrence keys and their string order need (the date after
 * 9999-12-31 is `+010000-01-01`, which neither parses nor sorts); a rule runs out of occurrences at the end
 * of the range, as at an `endDate`, so none can leave it.
 */
export const RULE_DATES = { first: '2000-01-01', last: '2999-12-31' } as const;

/** `Date.UTC` of a civil date; unlike `Date.UTC(y, …)` itself, correct for years 0 to 99 too (not read as 19xx). */
function utcMs(year: number, monthIndex: number, day: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, day);
  return date.getTime();
}

/** A civil date as days since 1970-01-01 (proleptic Gregorian), and back. */
function toDays(date: string): number {
  const [y, m, d] = parseDate(date);
  return Math.round(utcMs(y, m - 1, d) / DAY_MS);
}

function fromDays(days: number): string {
  return new Date(days * DAY_MS).toISOString().slice(0, 10);
}

function parseDate(date: string): [number, number, number] {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) throw new RangeError(`not a date: ${date}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

/** True for a real calendar date in `YYYY-MM-DD` form (rejects 2026-02-30). */
export function isCalendarDate(date: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return false;
  const [y, m, d] = parseDate(date);
  return m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y, m);
}

/** True for a calendar date a rule may name: within RULE_DATES. */
export function isRuleDate(date: string): boolean {
  return isCalendarDate(date) && date >= RULE_DATES.first && date <= RULE_DATES.last;
}

export function daysInMonth(year: number, month: number): number {
  return new Date(utcMs(year, month, 0)).getUTCDate();
}

/** True when `timeZone` is an IANA zone this runtime knows. */
export function isTimeZone(timeZone: string): boolean {
  try {
    wallClockIn(timeZone, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The local date of occurrence `index`. Monthly dates are computed from the anchor day every time, never
 * from the previous occurrence, so Jan 31 -> Feb 28 (29) -> Mar 31 and the 31st never drifts.
 */
export function localDateAt(rule: RecurrenceRule, index: number): string {
  switch (rule.interval) {
    case 'daily':
      return fromDays(toDays(rule.startDate) + index * rule.every);
    case 'weekly':
      return fromDays(toDays(rule.startDate) + index * rule.every * 7);
    case 'monthly': {
      const [y, m, anchorDay] = parseDate(rule.startDate);
      const months = m - 1 + index * rule.every;
      const year = y + Math.floor(months / 12);
      const month = (months % 12) + 1;
      const day = Math.min(anchorDay, daysInMonth(year, month));
      return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
    }
  }
}

/** The index of the first occurrence whose local date could be on or after `date` (a safe lower bound). */
function indexNear(rule: RecurrenceRule, date: string): number {
  const days = toDays(date) - toDays(rule.startDate) - 2; // local date vs UTC instant differ by < 2 days
  if (days <= 0) return 0;
  const period = rule.interval === 'daily' ? 1 : rule.interval === 'weekly' ? 7 : 31;
  return Math.max(0, Math.floor(days / (period * rule.every)) - 1);
}

/**
 * The occurrences of a rule inside a window, in order: strictly increasing, no duplicates, never past
 * `endDate` or `maxOccurrences`.
 *
 * @example
 * occurrences({ interval: 'monthly', every: 1, startDate: '2026-01-31', timeOfDay: '09:00', timeZone: 'Africa/Lagos' }, { limit: 3 })
 * // 2026-01-31 08:00Z, 2026-02-28 08:00Z, 2026-03-31 08:00Z
 */
export function occurrences(rule: RecurrenceRule, window: OccurrenceWindow = {}): Occurrence[] {
  const limit = window.limit ?? 100;
  const result: Occurrence[] = [];
  const fromMs = window.from?.getTime();
  const toMs = window.to?.getTime();
  const lastDate = lastDateOf(rule);
  let index = window.fromIndex ?? 0;
  if (window.from) index = Math.max(index, indexNear(rule, window.from.toISOString().slice(0, 10)));
  while (result.length < limit) {
    if (rule.maxOccurrences !== undefined && index >= rule.maxOccurrences) break;
    const localDate = localDateAt(rule, index);
    if (localDate > lastDate) break;
    const atMs = zonedToUtc(localDate, rule.timeOfDay, rule.timeZone);
    if (toMs !== undefined && atMs > toMs) break;
    if (fromMs === undefined || atMs >= fromMs) {
      result.push({ index, localDate, at: new Date(atMs).toISOString() });
    }
    index++;
  }
  return result;
}

/** The occurrence of a rule on a local date, or undefined when the rule does not pay that day. */
export function occurrenceOn(rule: RecurrenceRule, localDate: string): Occurrence | undefined {
  const lastDate = lastDateOf(rule);
  // A date past the rule's last one is never reached: without this, the search below would walk past year 9999.
  if (!isCalendarDate(localDate) || localDate < rule.startDate || localDate > lastDate) return undefined;
  let index = indexNear(rule, localDate);
  for (;;) {
    if (rule.maxOccurrences !== undefined && index >= rule.maxOccurrences) return undefined;
    const date = localDateAt(rule, index);
    if (date > localDate) return undefined;
    if (date === localDate) {
      return {
        index,
        localDate,
        at: new Date(zonedToUtc(date, rule.timeOfDay, rule.timeZone)).toISOString(),
      };
    }
    index++;
  }
}

/**
 * The last date an occurrence may fall on: the rule's `endDate`, never past RULE_DATES. The first date a rule
 * computes past it is at most `every` (366) months later, still a four-digit year, so comparing strings stops it.
 */
function lastDateOf(rule: RecurrenceRule): string {
  return rule.endDate !== undefined && rule.endDate < RULE_DATES.last ? rule.endDate : RULE_DATES.last;
}

/** The zone's offset from UTC at an instant, in ms (local minus UTC). */
export function offsetAt(timeZone: string, utcMs: number): number {
  const clock = wallClockIn(timeZone, utcMs);
  const wall = Date.UTC(clock.year, clock.month - 1, clock.day, clock.hour, clock.minute, clock.second);
  return wall - Math.floor(utcMs / 1000) * 1000;
}

/**
 * The UTC instant of a local wall-clock time. In a daylight-saving gap (a local time that does not exist)
 * the time moves forward by the gap; in an overlap (a local time that occurs twice) the first is taken.
 */
export function zonedToUtc(localDate: string, timeOfDay: string, timeZone: string): number {
  const [y, m, d] = parseDate(localDate);
  const [hh, mm] = timeOfDay.split(':').map(Number);
  const wall = Date.UTC(y, m - 1, d, hh ?? 0, mm ?? 0);
  const before = offsetAt(timeZone, wall - DAY_MS);
  const after = offsetAt(timeZone, wall + DAY_MS);
  const candidates = [wall - before, wall - after]
    .filter((utc) => offsetAt(timeZone, utc) === wall - utc)
    .sort((a, b) => a - b);
  // A gap: read the wall time with the offset in force before the transition, which lands after it.
  return candidates[0] ?? wall - before;
}
