/** What a clock on the wall in some time zone shows at an instant. */
export interface WallClock {
  readonly year: number;
  /** 1-12. */
  readonly month: number;
  readonly day: number;
  /** 0-23. */
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

/**
 * Zones that have kept one offset from UTC, with no daylight saving, for as long as this project can see
 * (Nigeria has been on UTC+01:00 since 1919), in minutes east of UTC. Their wall clock is plain arithmetic.
 *
 * Why not Intl for them too: the first `Intl.DateTimeFormat` a process builds initialises ICU's locale and
 * time-zone data, ~11 ms of every cold start, and the claim path asks for the Lagos day of every payout.
 * `test/shared/wall-clock.test.ts` checks each entry against this machine's time-zone database, so an entry
 * the database contradicts fails there; any zone not listed goes through Intl.
 */
export const FIXED_OFFSET_ZONES: ReadonlyMap<string, number> = new Map([
  ['Africa/Lagos', 60],
  ['UTC', 0],
  ['Etc/UTC', 0],
]);

const MINUTE_MS = 60_000;

/**
 * The wall clock in `timeZone` (an IANA name) at an instant.
 *
 * @example wallClockIn('Africa/Lagos', new Date('2026-11-22T23:30:00Z')) // { year: 2026, month: 11, day: 23, hour: 0, minute: 30, second: 0 }
 */
export function wallClockIn(timeZone: string, at: Date | number): WallClock {
  const utcMs = typeof at === 'number' ? at : at.getTime();
  // A Map, not an object: a zone named like an Object.prototype member ("toString") must reach Intl and fail.
  const fixedOffset = FIXED_OFFSET_ZONES.get(timeZone);
  if (fixedOffset !== undefined) return utcFields(new Date(utcMs + fixedOffset * MINUTE_MS));
  return timeZoneDatabaseWallClock(timeZone, utcMs);
}

/**
 * The calendar day (YYYY-MM-DD) of an instant in a time zone.
 *
 * @example calendarDayIn('Africa/Lagos', new Date('2026-11-22T23:30:00Z')) // "2026-11-23"
 */
export function calendarDayIn(timeZone: string, at: Date | number): string {
  const { year, month, day } = wallClockIn(timeZone, at);
  return `${String(year).padStart(4, '0')}-${twoDigits(month)}-${twoDigits(day)}`;
}

/** Minutes since local midnight of an instant in a time zone. */
export function minuteOfDayIn(timeZone: string, at: Date | number): number {
  const { hour, minute } = wallClockIn(timeZone, at);
  return hour * 60 + minute;
}

function utcFields(shifted: Date): WallClock {
  return {
    year: shifted.getUTCFullYear(),
    month: shifted.getUTCMonth() + 1,
    day: shifted.getUTCDate(),
    hour: shifted.getUTCHours(),
    minute: shifted.getUTCMinutes(),
    second: shifted.getUTCSeconds(),
  };
}

/** One formatter per zone, built on first use: building one costs far more than using it. */
const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * The wall clock as the runtime's time-zone database (through Intl) has it, for any zone, listed or not: what
 * `wallClockIn` does for zones with daylight saving, and the reference its fixed offsets are checked against.
 */
export function timeZoneDatabaseWallClock(timeZone: string, utcMs: number): WallClock {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  const parts: Partial<Record<Intl.DateTimeFormatPartTypes, number>> = {};
  for (const part of formatter.formatToParts(new Date(utcMs))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 1970,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

function twoDigits(value: number): string {
  return String(value).padStart(2, '0');
}
