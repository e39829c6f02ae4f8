import { describe, expect, it } from 'vitest';
import {
  attemptOfMarker,
  confirmsWallet,
  type MatchableRecord,
  mismatchOf,
} from '../../lib/payouts/adapters/record-match.js';
import { endsWithMarker, payoutMarker } from '../../lib/payouts/gateway.js';
import type { Payout } from '../../lib/payouts/model.js';

const ID = '01KJQ3Z8V6W9X2Y4A7B1C3D5E7';
const payout = {
  id: ID,
  amountKobo: 50_000_000,
  instruction: {
    type: 'bank_transfer',
    beneficiary: { bankCode: '058', accountNumber: '1111111111', accountName: 'Victim Payee' },
  },
  submissionCount: 1,
} as unknown as Payout;

const record = (overrides: Partial<MatchableRecord> = {}): MatchableRecord => ({
  id: 'tx-1',
  type: 'DEBIT',
  status: 'SUCCESS',
  category: 'BANK_TRANSFER',
  amount: 500_000,
  narration: `supplier invoice po_${ID}`,
  createdAt: '2026-03-02T08:00:00.000Z',
  beneficiaryBankCode: '058',
  beneficiaryAccountNumber: '1111111111',
  ...overrides,
});

describe('markers', () => {
  it('are po_<id> for the first attempt and po_<id>_<n> after', () => {
    expect(payoutMarker(ID)).toBe(`po_${ID}`);
    expect(payoutMarker(ID, 3)).toBe(`po_${ID}_3`);
  });

  it('match only as the last whole word of a narration', () => {
    const marker = payoutMarker(ID);
    expect(endsWithMarker(`invoice ${marker}`, marker)).toBe(true);
    expect(endsWithMarker(marker, marker)).toBe(true);
    expect(endsWithMarker(`${marker} po_01KJQ3Z8V6W9X2Y4A7B1C3D5E8`, marker)).toBe(false);
    expect(endsWithMarker(`x${marker}`, marker)).toBe(false);
    expect(endsWithMarker(`invoice ${marker}_2`, marker)).toBe(false);
    expect(endsWithMarker(`invoice ${marker.toLowerCase()}`, marker)).toBe(false);
    expect(endsWithMarker(undefined, marker)).toBe(false);
  });

  it('name the attempt they belong to, and nothing that only looks like one', () => {
    expect(attemptOfMarker(payout, `a po_${ID}`)).toBe(1);
    expect(attemptOfMarker(payout, `a po_${ID}_4`)).toBe(4);
    for (const other of [`po_${ID}_1`, `po_${ID}_04`, `po_${ID}_2x`, `po_${ID}x`, `po_${ID} trailing`]) {
      expect(attemptOfMarker(payout, other), other).toBeUndefined();
    }
  });
});

describe('a record carrying the marker', () => {
  it('matches when type, category, amount and destination agree', () => {
    expect(mismatchOf(payout, record())).toBe('');
  });

  it.each([
    ['a 1 NGN amount', { amount: 1 }, /amount 100 kobo, not 50000000/],
    ['another account', { beneficiaryAccountNumber: '2222222222' }, /destination 058\/2222222222/],
    ['another bank', { beneficiaryBankCode: '044' }, /destination 044\/1111111111/],
    ['a credit', { type: 'CREDIT' }, /type CREDIT/],
    ['a wallet transfer', { category: 'WALLET_TO_WALLET' }, /category WALLET_TO_WALLET/],
    ['another payout in its metadata', { metadata: { payoutId: 'other' } }, /metadata.payoutId other/],
    ['metadata without a payout id', { metadata: {} }, /metadata.payoutId undefined/],
    ['an amount with a fraction of a kobo', { amount: 500_000.001 }, /amount 500000.001 kobo/],
  ])('does not match with %s', (_what, overrides, why) => {
    expect(mismatchOf(payout, record(overrides))).toMatch(why);
  });

  it('matches a wallet transfer only when the destination wallet lists its credit', () => {
    const debit = record({ category: 'WALLET_TO_WALLET', reference: 'ref-1' });
    const confirmation = { walletId: 'w-dest', type: 'CREDIT' as const };
    expect(confirmsWallet(debit, record({ type: 'CREDIT', reference: 'ref-1' }), confirmation)).toBe(true);
    expect(confirmsWallet(debit, record({ type: 'CREDIT', reference: 'ref-2' }), confirmation)).toBe(false);
    expect(
      confirmsWallet(debit, record({ type: 'CREDIT', reference: 'ref-1', amount: 1 }), confirmation),
    ).toBe(false);
  });
});
