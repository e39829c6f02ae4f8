import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatNaira, koboOfNairaText, MoneyError, toKobo, toNaira, toWholeNaira } from '../../lib/money.js';

describe('toKobo', () => {
  it('converts the decimals the provider sends exactly', () => {
    expect(toKobo(294.9)).toBe(29490);
    expect(toKobo(200)).toBe(20000);
    expect(toKobo(0.1)).toBe(10);
    expect(toKobo(10.75)).toBe(1075);
    expect(toKobo(0)).toBe(0);
    expect(toKobo(-26.88)).toBe(-2688);
  });

  it('throws when an amount has more than two decimals', () => {
    expect(() => toKobo(1.005)).toThrow(MoneyError);
    expect(() => toKobo(1e-7)).toThrow(MoneyError);
  });

  it('throws on values that are not finite or not safe', () => {
    expect(() => toKobo(Number.NaN)).toThrow(MoneyError);
    expect(() => toKobo(Number.POSITIVE_INFINITY)).toThrow(MoneyError);
    expect(() => toKobo(1e21)).toThrow(MoneyError);
  });

  it('round-trips every kobo amount through the wire form', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 50), max: 2 ** 50 }), (kobo) => {
        expect(toKobo(toNaira(kobo))).toBe(kobo);
      }),
      { numRuns: 5000 },
    );
  });

  it('round-trips through JSON as the provider would send it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 13 }), (kobo) => {
        const wire = JSON.parse(JSON.stringify({ amount: toNaira(kobo) })) as { amount: number };
        expect(toKobo(wire.amount)).toBe(kobo);
      }),
    );
  });
});

describe('toWholeNaira', () => {
  it('converts whole-naira amounts', () => {
    expect(toWholeNaira(500000)).toBe(5000);
  });

  it('throws when the amount has a kobo part', () => {
    expect(() => toWholeNaira(500050)).toThrow(/not a whole number of naira/);
  });

  it('throws on non-integer kobo', () => {
    expect(() => toWholeNaira(1.5)).toThrow(MoneyError);
  });
});

describe('formatNaira', () => {
  it('formats with grouping and two decimals', () => {
    expect(formatNaira(123450)).toBe('NGN 1,234.50');
    expect(formatNaira(5)).toBe('NGN 0.05');
    expect(formatNaira(-100)).toBe('-NGN 1.00');
    expect(formatNaira(100_000_000)).toBe('NGN 1,000,000.00');
    expect(formatNaira(Number.MAX_SAFE_INTEGER)).toBe('NGN 90,071,992,547,409.91');
  });

  it('groups the naira exactly as the en-US locale does, for every safe amount', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (kobo) => {
        const naira = Math.trunc(Math.abs(kobo) / 100).toLocaleString('en-US');
        expect(formatNaira(kobo)).toBe(
          `${kobo < 0 ? '-' : ''}NGN ${naira}.${String(Math.abs(kobo) % 100).padStart(2, '0')}`,
        );
      }),
    );
  });
});

describe('koboOfNairaText (what a person types in the console)', () => {
  it('reads naira with thousands commas and up to two decimals exactly', () => {
    expect(koboOfNairaText('1,500,000.5')).toBe(150_000_050);
    expect(koboOfNairaText('1500000.50')).toBe(150_000_050);
    expect(koboOfNairaText(' 250 ')).toBe(25_000);
    expect(koboOfNairaText('0.01')).toBe(1);
    expect(koboOfNairaText('294.9')).toBe(29_490);
  });

  it('refuses misplaced commas, three decimals, signs, zero and words', () => {
    for (const text of ['1,50,000', '1,5000', '1.234', '-5', '+5', '0', '0.00', '', 'ten', '1e5', '5.']) {
      expect(() => koboOfNairaText(text), text).toThrow(MoneyError);
    }
  });
});
