/**
 * Calendar days in a time zone (the provider's business day is Lagos's): which day a statement covers and the
 * instants it spans. Uses the platform's time-zone data (Intl), so any IANA zone and its DST rules work.
 */

const partsFormat = new Map<string, Intl.DateTimeFormat>();

function formatIn(timeZone: string): Intl.DateTimeFormat {
  let format = partsFormat.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    partsFormat.set(timeZone, format);
  }
  return format;
}

/** The wall-clock fields of `at` in `timeZone`. */
function wallClock(at: Date, timeZone: string) {
  const parts = formatIn(timeZone).formatToParts(at);
  const field = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  return {
    year: field('year'),
    month: field('month'),
    day: field('day'),
    hour: field('hour'),
    minute: field('minute'),
    second: field('second'),
  };
}

/** How far `timeZone`'s wall clock is ahead of UTC at `at`, in ms. */
function offsetMs(at: Date, timeZone: string): number {
  const w = wallClock(at, timeZone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - Math.floor(at.getTime() / 1000) * 1000;
}

/** The instant the wall clock of `timeZone` shows `date` at `hh:mm` (the later one, should DST repeat it). */
function instantOf(date: string, minutesIntoDay: number, timeZone: string): number {
  const [year, month, day] = date.split('-').map(Number);
  const naive = Date.UTC(year ?? 1970, (month ?? 1) - 1, day ?? 1) + minutesIntoDay * 60_000;
  // Two passes: the offset at the guess can differ from the offset at the answer across a DST change.
  const first = naive - offsetMs(new Date(naive), timeZone);
  return naive - offsetMs(new Date(first), timeZone);
}

/** `YYYY-MM-DD` of `at` in `timeZone`. */
export function dateIn(at: Date, timeZone: string): string {
  const w = wallClock(at, timeZone);
  return `${w.year}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`;
}

/** The day before `date` (calendar arithmetic, no zone). */
export function previousDate(date: string): string {
  return new Date(Date.parse(`${date}T12:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
}

/**
 * The first and last instant of `date` in `timeZone`, inclusive, to the millisecond: the provider's listing
 * filters `startDate`/`endDate` inclusively on `createdAt`.
 *
 * @example dayWindow('2026-03-01', 'Africa/Lagos') // { from: '2026-02-28T23:00:00.000Z', to: '2026-03-01T22:59:59.999Z' }
 */
export function dayWindow(date: string, timeZone: string): { from: string; to: string } {
  const start = instantOf(date, 0, timeZone);
  const next = instantOf(
    new Date(Date.parse(`${date}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10),
    0,
    timeZone,
  );
  return { from: new Date(start).toISOString(), to: new Date(next - 1).toISOString() };
}

/** Minutes into the day of an `HH:MM` time. */
export function minutesOf(time: string): number {
  const [hours, minutes] = time.split(':').map(Number);
  return (hours ?? 0) * 60 + (minutes ?? 0);
}

/**
 * The day a scheduled run at `now` should report: the day before today in `timeZone` once its wall clock has
 * passed `runAt` (`HH:MM`), else undefined (too early: the day before is not over long enough to be listed).
 */
export function dueStatementDate(now: Date, timeZone: string, runAt: string): string | undefined {
  const today = dateIn(now, timeZone);
  if (now.getTime() < instantOf(today, minutesOf(runAt), timeZone)) return undefined;
  return previousDate(today);
}

/**
 * The first instant of `from` and the last of `to` in `timeZone`, inclusive: the span of a range of days, as
 * the payout export lists it (`GET /payouts/export.csv`).
 *
 * @example daysWindow('2026-03-01', '2026-03-31', 'Africa/Lagos') // { from: '2026-02-28T23:00:00.000Z', to: '2026-03-31T22:59:59.999Z' }
 */
export function daysWindow(from: string, to: string, timeZone: string): { from: string; to: string } {
  return { from: dayWindow(from, timeZone).from, to: dayWindow(to, timeZone).to };
}

/** How many calendar days `from` to `to` covers, both counted (`2026-03-01` to `2026-03-31` is 31). */
export function daysCovered(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T12:00:00Z`) - Date.parse(`${from}T12:00:00Z`)) / 86_400_000) + 1;
}
