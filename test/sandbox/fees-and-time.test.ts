import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bankTransferCharges, DEFAULT_FEES, feeTable, vatOn } from '../../lib/sandbox/fees.js';
import { calendarDate, isoLagos, isoUtc } from '../../lib/sandbox/time.js';

describe('fee table', () => {
  it.each([
    [1, 10_00, 75],
    [5_000_00, 10_00, 75],
    [5_000_01, 25_00, 1_88],
    [50_000_00, 25_00, 1_88],
    [50_000_01, 50_00, 3_75],
    [1_000_000_000_00, 50_00, 3_75],
  ])('charges a bank transfer of %d kobo a fee of %d and VAT of %d', (amount, fee, vat) => {
    expect(bankTransferCharges(amount, DEFAULT_FEES)).toEqual({ feeKobo: fee, vatKobo: vat });
  });

  it('rounds VAT half up to the kobo', () => {
    expect(vatOn(2_00, DEFAULT_FEES)).toBe(15); // 15.0
    expect(vatOn(2_500, DEFAULT_FEES)).toBe(188); // 187.5
    expect(vatOn(1, DEFAULT_FEES)).toBe(0); // 0.075
    expect(vatOn(7, DEFAULT_FEES)).toBe(1); // 0.525
  });

  it('never charges less VAT than 7.5% rounded down nor more than rounded up', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), (fee) => {
        const vat = vatOn(fee, DEFAULT_FEES);
        expect(vat).toBeGreaterThanOrEqual(Math.floor((fee * 75) / 1000));
        expect(vat).toBeLessThanOrEqual(Math.ceil((fee * 75) / 1000));
      }),
    );
  });

  it('merges partial overrides over the defaults', () => {
    const table = feeTable({ vatBasisPoints: 0 });
    expect(table.bankTransferTiers).toBe(DEFAULT_FEES.bankTransferTiers);
    expect(bankTransferCharges(100, table)).toEqual({ feeKobo: 10_00, vatKobo: 0 });
  });
});

describe('timestamps', () => {
  it('writes wallet-operation paidAt at +01:00 without milliseconds', () => {
    expect(isoLagos(new Date('2026-11-22T09:15:30.999Z'))).toBe('2026-11-22T10:15:30+01:00');
    expect(isoLagos(new Date('2026-12-31T23:30:00.000Z'))).toBe('2027-01-01T00:30:00+01:00');
  });

  it('writes listings in UTC with milliseconds and settlement dates as the Lagos calendar day', () => {
    expect(isoUtc(new Date('2026-11-22T09:15:30.120Z'))).toBe('2026-11-22T09:15:30.120Z');
    expect(calendarDate(new Date('2026-11-22T22:59:59.000Z'))).toBe('2026-11-22');
    expect(calendarDate(new Date('2026-11-22T23:00:00.000Z'))).toBe('2026-11-23');
  });
});
