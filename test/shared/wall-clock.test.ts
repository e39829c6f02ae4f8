import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  calendarDayIn,
  FIXED_OFFSET_ZONES,
  minuteOfDayIn,
  timeZoneDatabaseWallClock,
  wallClockIn,
} from '../../lib/shared/wall-clock.js';

const FROM = Date.UTC(1970, 0, 1);
const TO = Date.UTC(2100, 0, 1);
/** An odd step, so the samples fall on every hour, minute and day of the month over the years. */
const STEP_MS = (97 * 60 + 13) * 60_000 + 7_000;

describe('wallClockIn', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each([...FIXED_OFFSET_ZONES.keys()])(
    'agrees with the time-zone database for the fixed-offset zone %s from 1970 to 2100',
    (timeZone) => {
      const disagreements: string[] = [];
      for (let at = FROM; at < TO && disagreements.length < 3; at += STEP_MS) {
        const expected = timeZoneDatabaseWallClock(timeZone, at);
        const actual = wallClockIn(timeZone, at);
        if (JSON.stringify(actual) !== JSON.stringify(expected)) {
          disagreements.push(
            `${new Date(at).toISOString()}: ${JSON.stringify(actual)} != ${JSON.stringify(expected)}`,
          );
        }
      }
      expect(disagreements).toEqual([]);
    },
  );

  it('reads a zone with daylight saving from the time-zone database, on both sides of the change', () => {
    // New York sprang forward at 2026-03-08 07:00 UTC (02:00 EST became 03:00 EDT).
    expect(wallClockIn('America/New_York', Date.UTC(2026, 2, 8, 6, 59, 59))).toEqual({
      year: 2026,
      month: 3,
      day: 8,
      hour: 1,
      minute: 59,
      second: 59,
    });
    expect(wallClockIn('America/New_York', Date.UTC(2026, 2, 8, 7, 0, 0))).toMatchObject({
      hour: 3,
      minute: 0,
    });
  });

  it('reads midnight as hour 0, not 24', () => {
    expect(wallClockIn('America/New_York', Date.UTC(2026, 0, 15, 5, 0, 0))).toMatchObject({
      day: 15,
      hour: 0,
    });
  });

  it('throws a RangeError for a zone the runtime does not know', () => {
    expect(() => wallClockIn('Mars/Olympus_Mons', 0)).toThrow(RangeError);
  });

  it.each(['toString', 'constructor', '__proto__'])(
    'throws a RangeError for %s, which is a name on every object but no zone',
    (name) => {
      expect(() => wallClockIn(name, 0)).toThrow(RangeError);
    },
  );

  it('builds no Intl formatter for Lagos, so the claim path never pays for initialising ICU', () => {
    const constructed = vi.spyOn(Intl, 'DateTimeFormat');
    calendarDayIn('Africa/Lagos', new Date());
    minuteOfDayIn('Africa/Lagos', new Date());
    expect(constructed).not.toHaveBeenCalled();
  });
});

describe('calendarDayIn', () => {
  it('gives the Lagos day, which starts an hour before the UTC day', () => {
    expect(calendarDayIn('Africa/Lagos', new Date('2026-11-22T22:59:59Z'))).toBe('2026-11-22');
    expect(calendarDayIn('Africa/Lagos', new Date('2026-11-22T23:00:00Z'))).toBe('2026-11-23');
  });

  it('pads months and days to two digits', () => {
    expect(calendarDayIn('UTC', new Date('2027-01-05T12:00:00Z'))).toBe('2027-01-05');
  });
});

describe('minuteOfDayIn', () => {
  it('counts minutes since local midnight', () => {
    expect(minuteOfDayIn('Africa/Lagos', new Date('2026-11-22T08:15:00Z'))).toBe(9 * 60 + 15);
    expect(minuteOfDayIn('Africa/Lagos', new Date('2026-11-22T23:05:00Z'))).toBe(5);
  });
});
