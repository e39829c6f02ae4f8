import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  daysInMonth,
  isCalendarDate,
  isRuleDate,
  localDateAt,
  occurrenceOn,
  occurrences,
  type RecurrenceRule,
  zonedToUtc,
} from '../../lib/recurrence/rules.js';

const ZONES = ['Africa/Lagos', 'America/New_York', 'Europe/London', 'Australia/Sydney', 'UTC'] as const;

/** The local date and HH:MM of an instant in a zone, read with Intl independently of the code under test. */
function localOf(at: string, timeZone: string): { date: string; time: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    })
      .formatToParts(new Date(at))
      .map((part) => [part.type, part.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` };
}

const dateArb = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2060-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const timeArb = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);

const ruleArb: fc.Arbitrary<RecurrenceRule> = fc
  .record({
    interval: fc.constantFrom('daily', 'weekly', 'monthly' as const),
    every: fc.integer({ min: 1, max: 6 }),
    startDate: dateArb,
    timeOfDay: timeArb,
    timeZone: fc.constantFrom(...ZONES),
    endAfterDays: fc.option(fc.integer({ min: 0, max: 2000 }), { nil: undefined }),
    maxOccurrences: fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
  })
  .map(({ endAfterDays, maxOccurrences, ...rule }) => ({
    ...rule,
    ...(endAfterDays !== undefined && {
      endDate: new Date(Date.parse(`${rule.startDate}T00:00:00Z`) + endAfterDays * 86_400_000)
        .toISOString()
        .slice(0, 10),
    }),
    ...(maxOccurrences !== undefined && { maxOccurrences }),
  }));

describe('occurrences (properties)', () => {
  it('are strictly increasing, without duplicates, and each is the rule’s local date and time', () => {
    fc.assert(
      fc.property(ruleArb, (rule) => {
        const list = occurrences(rule, { limit: 40 });
        expect(list.length).toBeGreaterThan(0);
        for (let i = 1; i < list.length; i++) {
          const [previous, current] = [list[i - 1], list[i]];
          expect((current?.at ?? '') > (previous?.at ?? '')).toBe(true);
          expect((current?.localDate ?? '') > (previous?.localDate ?? '')).toBe(true);
          expect(current?.index).toBe((previous?.index ?? 0) + 1);
        }
        for (const occurrence of list) {
          const local = localOf(occurrence.at, rule.timeZone);
          expect(local.date).toBe(occurrence.localDate);
          // Equal to the time of day, or later by a daylight-saving gap (at most an hour here).
          const shift =
            zonedToUtc(occurrence.localDate, local.time, rule.timeZone) - Date.parse(occurrence.at);
          expect(local.time >= rule.timeOfDay || shift === 0).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('respect endDate and maxOccurrences', () => {
    fc.assert(
      fc.property(ruleArb, (rule) => {
        const list = occurrences(rule, { limit: 5000 });
        if (rule.maxOccurrences !== undefined) expect(list.length).toBeLessThanOrEqual(rule.maxOccurrences);
        if (rule.endDate !== undefined) {
          for (const occurrence of list) expect(occurrence.localDate <= rule.endDate).toBe(true);
          expect(list[0]?.localDate).toBe(rule.startDate);
        }
        if (rule.endDate === undefined && rule.maxOccurrences !== undefined) {
          expect(list).toHaveLength(rule.maxOccurrences);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('return every occurrence inside a window, and only those', () => {
    fc.assert(
      fc.property(
        ruleArb,
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 1, max: 120 }),
        (rule, offsetDays, spanDays) => {
          const all = occurrences(rule, { limit: 3000 });
          const from = new Date(Date.parse(`${rule.startDate}T00:00:00Z`) + offsetDays * 86_400_000);
          const to = new Date(from.getTime() + spanDays * 86_400_000);
          const expected = all.filter((o) => o.at >= from.toISOString() && o.at <= to.toISOString());
          if (all.length === 3000 && (all.at(-1)?.at ?? '') < to.toISOString()) return; // window beyond the sample
          expect(occurrences(rule, { from, to, limit: 3000 })).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('space daily and weekly dates exactly `every` days or weeks apart', () => {
    fc.assert(
      fc.property(ruleArb, (rule) => {
        if (rule.interval === 'monthly') return;
        const step = (rule.interval === 'daily' ? 1 : 7) * rule.every * 86_400_000;
        const list = occurrences(rule, { limit: 30 });
        for (let i = 1; i < list.length; i++) {
          const gap =
            Date.parse(`${list[i]?.localDate}T00:00:00Z`) - Date.parse(`${list[i - 1]?.localDate}T00:00:00Z`);
          expect(gap).toBe(step);
        }
      }),
    );
  });

  it('clamp monthly dates to the month’s last day and return to the anchor day afterwards', () => {
    fc.assert(
      fc.property(ruleArb, (rule) => {
        if (rule.interval !== 'monthly') return;
        const anchor = Number(rule.startDate.slice(8, 10));
        for (const occurrence of occurrences(rule, { limit: 40 })) {
          const [y, m, d] = occurrence.localDate.split('-').map(Number);
          expect(d).toBe(Math.min(anchor, daysInMonth(y ?? 0, m ?? 0)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('find each occurrence again by its local date', () => {
    fc.assert(
      fc.property(ruleArb, (rule) => {
        for (const occurrence of occurrences(rule, { limit: 15 })) {
          expect(occurrenceOn(rule, occurrence.localDate)).toEqual(occurrence);
        }
      }),
    );
  });
});

const monthly = (startDate: string, timeZone = 'Africa/Lagos'): RecurrenceRule => ({
  interval: 'monthly',
  every: 1,
  startDate,
  timeOfDay: '09:00',
  timeZone,
});

describe('month ends and leap years', () => {
  it('pays the 31st on Feb 28, then on Mar 31 again, never drifting to the 28th', () => {
    expect(occurrences(monthly('2026-01-31'), { limit: 5 }).map((o) => o.localDate)).toEqual([
      '2026-01-31',
      '2026-02-28',
      '2026-03-31',
      '2026-04-30',
      '2026-05-31',
    ]);
  });

  it('pays the 29th and 30th on Feb 29 in a leap year and Feb 28 otherwise', () => {
    expect(localDateAt(monthly('2027-01-30'), 1)).toBe('2027-02-28');
    expect(localDateAt(monthly('2028-01-30'), 1)).toBe('2028-02-29');
    expect(localDateAt(monthly('2028-01-29'), 1)).toBe('2028-02-29');
    expect(localDateAt(monthly('2028-01-29'), 2)).toBe('2028-03-29');
  });

  it('treats 2100 as a common year and 2000 as a leap year', () => {
    expect(localDateAt(monthly('2100-01-31'), 1)).toBe('2100-02-28');
    expect(localDateAt(monthly('2000-01-31'), 1)).toBe('2000-02-29');
  });

  it('keeps a yearly-like monthly rule (every 12) on Feb 29 only in leap years', () => {
    const rule = { ...monthly('2024-02-29'), every: 12 };
    expect(occurrences(rule, { limit: 5 }).map((o) => o.localDate)).toEqual([
      '2024-02-29',
      '2025-02-28',
      '2026-02-28',
      '2027-02-28',
      '2028-02-29',
    ]);
  });

  it('refuses impossible calendar dates', () => {
    expect(isCalendarDate('2026-02-29')).toBe(false);
    expect(isCalendarDate('2028-02-29')).toBe(true);
    expect(isCalendarDate('2026-13-01')).toBe(false);
  });
});

describe('time zones', () => {
  it('pays at 09:00 Lagos time, which is always 08:00Z (no daylight saving)', () => {
    const list = occurrences({ ...monthly('2026-01-15'), interval: 'daily' }, { limit: 400 });
    expect(list.every((o) => o.at.endsWith('T08:00:00.000Z'))).toBe(true);
  });

  it('keeps 09:00 New York time across both daylight-saving changes', () => {
    const rule: RecurrenceRule = { ...monthly('2026-03-07', 'America/New_York'), interval: 'daily' };
    expect(occurrences(rule, { limit: 2 }).map((o) => o.at)).toEqual([
      '2026-03-07T14:00:00.000Z',
      '2026-03-08T13:00:00.000Z',
    ]);
    const autumn = occurrences({ ...rule, startDate: '2026-10-31' }, { limit: 2 }).map((o) => o.at);
    expect(autumn).toEqual(['2026-10-31T13:00:00.000Z', '2026-11-01T14:00:00.000Z']);
  });

  it('moves a local time that does not exist (spring gap) forward by the gap', () => {
    // 02:30 on 2026-03-08 does not exist in New York: it is paid at 03:30 EDT.
    expect(new Date(zonedToUtc('2026-03-08', '02:30', 'America/New_York')).toISOString()).toBe(
      '2026-03-08T07:30:00.000Z',
    );
    // 01:30 on 2026-03-29 does not exist in London: it is paid at 02:30 BST.
    expect(new Date(zonedToUtc('2026-03-29', '01:30', 'Europe/London')).toISOString()).toBe(
      '2026-03-29T01:30:00.000Z',
    );
  });

  it('takes the first of a local time that occurs twice (autumn overlap), so it is paid once', () => {
    expect(new Date(zonedToUtc('2026-11-01', '01:30', 'America/New_York')).toISOString()).toBe(
      '2026-11-01T05:30:00.000Z',
    );
    expect(new Date(zonedToUtc('2026-10-25', '01:30', 'Europe/London')).toISOString()).toBe(
      '2026-10-25T00:30:00.000Z',
    );
    const daily: RecurrenceRule = {
      interval: 'daily',
      every: 1,
      startDate: '2026-10-24',
      timeOfDay: '01:30',
      timeZone: 'Europe/London',
    };
    expect(occurrences(daily, { limit: 3 }).map((o) => o.localDate)).toEqual([
      '2026-10-24',
      '2026-10-25',
      '2026-10-26',
    ]);
  });
});

describe('the range of dates a rule may reach', () => {
  it('accepts the dates of 2000 to 2999 only, and reads years 0 to 99 as themselves, not as 19xx', () => {
    expect(['2000-01-01', '2026-02-28', '2999-12-31'].every(isRuleDate)).toBe(true);
    expect(['1999-12-31', '3000-01-01', '9999-12-31', '0026-02-28'].some(isRuleDate)).toBe(false);
    // Year 0 is a leap year in the proleptic calendar; Date.UTC(0, …) means 1900, which is not.
    expect(daysInMonth(0, 2)).toBe(29);
    expect(isCalendarDate('0000-02-29')).toBe(true);
  });

  it('ends every rule at the end of the range, so no occurrence leaves it and no search walks past it', () => {
    const rule = (
      interval: RecurrenceRule['interval'],
      every: number,
      startDate: string,
    ): RecurrenceRule => ({
      interval,
      every,
      startDate,
      timeOfDay: '09:00',
      timeZone: 'Africa/Lagos',
    });
    expect(occurrences(rule('daily', 1, '2999-12-30'), { limit: 10 }).map((o) => o.localDate)).toEqual([
      '2999-12-30',
      '2999-12-31',
    ]);
    expect(occurrences(rule('monthly', 366, '2999-12-31'), { limit: 10 }).map((o) => o.localDate)).toEqual([
      '2999-12-31',
    ]);
    expect(occurrences(rule('weekly', 1, '2999-12-25'), { fromIndex: 1, limit: 10 })).toEqual([]);
    // A date no occurrence can reach is not an occurrence, at once (it was searched for until year 275760).
    const started = Date.now();
    expect(occurrenceOn(rule('weekly', 1, '2026-01-01'), '9999-12-31')).toBeUndefined();
    expect(occurrenceOn(rule('monthly', 366, '2026-01-31'), '9999-12-31')).toBeUndefined();
    expect(occurrenceOn(rule('daily', 1, '2026-01-01'), '2999-12-31')?.localDate).toBe('2999-12-31');
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
