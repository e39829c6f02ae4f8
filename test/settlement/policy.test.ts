import { describe, expect, it } from 'vitest';
import type { Settlement } from '../../lib/provider/index.js';
import { settlementPolicyFromEnv } from '../../lib/settlement/config.js';
import { SettlementConfigurationError } from '../../lib/settlement/errors.js';
import { decideSettlement, type SettlementPolicy } from '../../lib/settlement/policy.js';
import { allDayPolicy } from './support.js';

const settlement = (overrides: Partial<Settlement> = {}): Settlement => ({
  id: 'set-1',
  amount: 1_200,
  status: 'SUCCESSFUL',
  date: '2026-03-02',
  charges: 50,
  category: 'MERCHANT_SETTLEMENT',
  createdAt: '2026-03-02T07:00:00.000Z',
  ...overrides,
});
const policy = (overrides: Partial<SettlementPolicy> = {}): SettlementPolicy => ({
  ...allDayPolicy,
  ...overrides,
});
// 09:00 in Lagos (UTC+1).
const nineInLagos = new Date('2026-03-02T08:00:00.000Z');

describe('decideSettlement', () => {
  it('pays a SUCCESSFUL merchant settlement in full, converting the wire amount to kobo exactly', () => {
    expect(decideSettlement(settlement({ amount: 294.9 }), policy(), nineInLagos)).toEqual({
      kind: 'pay',
      amountKobo: 29_490,
      settlementKobo: 29_490,
    });
  });

  it('never pays a FAILED settlement, and says why', () => {
    const decision = decideSettlement(settlement({ status: 'FAILED' }), policy(), nineInLagos);
    expect(decision).toMatchObject({ kind: 'skip', code: 'SETTLEMENT_NOT_SUCCESSFUL' });
    expect(decision.kind === 'skip' && decision.reason).toContain('FAILED');
  });

  it('never pays a settlement of 0', () => {
    expect(decideSettlement(settlement({ amount: 0 }), policy(), nineInLagos)).toMatchObject({
      kind: 'skip',
      code: 'ZERO_AMOUNT',
    });
  });

  it('never pays an INSTANT_SETTLEMENT (it is a payout itself) or a category the policy leaves out', () => {
    for (const category of ['INSTANT_SETTLEMENT', 'SUBACCOUNT_SETTLEMENT']) {
      expect(decideSettlement(settlement({ category }), policy(), nineInLagos)).toMatchObject({
        kind: 'skip',
        code: 'CATEGORY_EXCLUDED',
      });
    }
  });

  it('subtracts the keep-back from the amount paid', () => {
    expect(
      decideSettlement(settlement({ amount: 1_200 }), policy({ keepBackKobo: 20_000 }), nineInLagos),
    ).toEqual({
      kind: 'pay',
      amountKobo: 100_000,
      settlementKobo: 120_000,
    });
  });

  it('skips a settlement the keep-back swallows whole', () => {
    expect(
      decideSettlement(settlement({ amount: 200 }), policy({ keepBackKobo: 20_000 }), nineInLagos),
    ).toMatchObject({ kind: 'skip', code: 'NOTHING_AFTER_KEEP_BACK' });
  });

  it('skips an amount below the minimum, compared after the keep-back', () => {
    expect(
      decideSettlement(settlement({ amount: 1_000 }), policy({ minimumKobo: 100_000 }), nineInLagos),
    ).toMatchObject({ kind: 'pay', amountKobo: 100_000 });
    expect(
      decideSettlement(
        settlement({ amount: 1_000 }),
        policy({ minimumKobo: 100_000, keepBackKobo: 1 }),
        nineInLagos,
      ),
    ).toMatchObject({ kind: 'skip', code: 'BELOW_MINIMUM' });
  });

  it('defers (does not skip) outside the allowed hours, read on the Lagos clock', () => {
    const officeHours = policy({ allowedMinutes: { from: 10 * 60, to: 17 * 60 } });
    // 09:59 Lagos is 08:59Z; 10:00 Lagos is 09:00Z; 17:00 Lagos is 16:00Z.
    expect(decideSettlement(settlement(), officeHours, new Date('2026-03-02T08:59:00Z'))).toMatchObject({
      kind: 'defer',
      code: 'OUTSIDE_ALLOWED_HOURS',
    });
    expect(decideSettlement(settlement(), officeHours, new Date('2026-03-02T09:00:00Z'))).toMatchObject({
      kind: 'pay',
    });
    expect(decideSettlement(settlement(), officeHours, new Date('2026-03-02T16:00:00Z'))).toMatchObject({
      kind: 'defer',
    });
  });

  it('handles an allowed window that wraps midnight', () => {
    const nights = policy({ allowedMinutes: { from: 22 * 60, to: 6 * 60 } });
    expect(decideSettlement(settlement(), nights, new Date('2026-03-02T21:30:00Z'))).toMatchObject({
      kind: 'pay',
    });
    expect(decideSettlement(settlement(), nights, new Date('2026-03-03T04:59:00Z'))).toMatchObject({
      kind: 'pay',
    });
    expect(decideSettlement(settlement(), nights, new Date('2026-03-03T05:00:00Z'))).toMatchObject({
      kind: 'defer',
    });
  });

  it('skips a FAILED settlement even outside the allowed hours: a skip is final, whatever the hour', () => {
    const officeHours = policy({ allowedMinutes: { from: 10 * 60, to: 17 * 60 } });
    expect(
      decideSettlement(settlement({ status: 'FAILED' }), officeHours, new Date('2026-03-02T23:00:00Z')),
    ).toMatchObject({ kind: 'skip' });
  });
});

describe('settlementPolicyFromEnv', () => {
  const destinationEnv = {
    SETTLEMENT_DESTINATION_BANK_CODE: '058',
    SETTLEMENT_DESTINATION_ACCOUNT_NUMBER: '0123456789',
    SETTLEMENT_DESTINATION_ACCOUNT_NAME: 'Demo Merchant Ltd',
  };

  it('is off when no destination is configured', () => {
    expect(settlementPolicyFromEnv({})).toBeUndefined();
  });

  it('reads the policy with its defaults', () => {
    expect(settlementPolicyFromEnv(destinationEnv)).toEqual({
      destination: { bankCode: '058', accountNumber: '0123456789', accountName: 'Demo Merchant Ltd' },
      minimumKobo: 100,
      keepBackKobo: 0,
      allowedMinutes: { from: 0, to: 1440 },
      categories: ['MERCHANT_SETTLEMENT', 'CARD_SETTLEMENT'],
    });
  });

  it('reads hours, amounts and categories', () => {
    expect(
      settlementPolicyFromEnv({
        ...destinationEnv,
        SETTLEMENT_MIN_KOBO: '500000',
        SETTLEMENT_KEEP_BACK_KOBO: '10000',
        SETTLEMENT_ALLOWED_HOURS: '08:30-18:00',
        SETTLEMENT_CATEGORIES: 'MERCHANT_SETTLEMENT',
      }),
    ).toMatchObject({
      minimumKobo: 500_000,
      keepBackKobo: 10_000,
      allowedMinutes: { from: 510, to: 1080 },
      categories: ['MERCHANT_SETTLEMENT'],
    });
  });

  it('reads the settlement cutoff as a UTC instant', () => {
    expect(
      settlementPolicyFromEnv({ ...destinationEnv, SETTLEMENT_SINCE: '2026-11-23T10:00:00+01:00' }),
    ).toMatchObject({ since: '2026-11-23T09:00:00.000Z' });
  });

  it('skips a settlement created before the cutoff, before any other rule', () => {
    expect(
      decideSettlement(
        settlement({ createdAt: '2026-03-01T08:59:59.999Z' }),
        policy(),
        nineInLagos,
        '2026-03-01T09:00:00Z',
      ),
    ).toMatchObject({ kind: 'skip', code: 'BEFORE_CUTOFF' });
    expect(
      decideSettlement(
        settlement({ createdAt: '2026-03-01T09:00:00.000Z' }),
        policy(),
        nineInLagos,
        '2026-03-01T09:00:00Z',
      ),
    ).toMatchObject({ kind: 'pay' });
  });

  it('throws naming the variable when the configuration is wrong', () => {
    const cases: [Record<string, string>, string][] = [
      [{ SETTLEMENT_DESTINATION_ACCOUNT_NUMBER: '0123456789' }, 'SETTLEMENT_DESTINATION_BANK_CODE'],
      [
        { ...destinationEnv, SETTLEMENT_DESTINATION_ACCOUNT_NUMBER: '12345' },
        'SETTLEMENT_DESTINATION_ACCOUNT_NUMBER',
      ],
      [{ ...destinationEnv, SETTLEMENT_ALLOWED_HOURS: '8-18' }, 'SETTLEMENT_ALLOWED_HOURS'],
      [{ ...destinationEnv, SETTLEMENT_ALLOWED_HOURS: '08:00-08:00' }, 'SETTLEMENT_ALLOWED_HOURS'],
      [{ ...destinationEnv, SETTLEMENT_MIN_KOBO: '1.5' }, 'SETTLEMENT_MIN_KOBO'],
      [{ ...destinationEnv, SETTLEMENT_CATEGORIES: 'INSTANT_SETTLEMENT' }, 'SETTLEMENT_CATEGORIES'],
      [{ ...destinationEnv, SETTLEMENT_SINCE: '2026-13-01' }, 'SETTLEMENT_SINCE'],
      [{ ...destinationEnv, SETTLEMENT_SINCE: 'yesterday' }, 'SETTLEMENT_SINCE'],
    ];
    for (const [env, variable] of cases) {
      expect(() => settlementPolicyFromEnv(env)).toThrow(SettlementConfigurationError);
      expect(() => settlementPolicyFromEnv(env)).toThrow(variable);
    }
  });
});
