import { describe, expect, it } from 'vitest';
import type { WalletTransaction } from '../../lib/provider/schemas/transaction.js';
import type { AcceptedRefund } from '../../lib/refunds/accepted-refunds.js';
import { matchDay, StatementLineKind } from '../../lib/statements/index.js';

/** A refund's debit as the provider lists it (CONTRACT.md, "A refund's wallet record"). */
function refundRecord(
  id: string,
  providerRefundId: string,
  amount: number,
  status = 'SUCCESS',
): WalletTransaction {
  return {
    id,
    type: 'DEBIT',
    status,
    charges: 0,
    reference: providerRefundId,
    category: 'REFUND',
    amount,
    sessionId: null,
    description: 'Refund of NGN 500.00 on payment-link transaction PLT-1',
    settledAmount: amount,
    createdAt: '2026-03-02T10:00:00.000Z',
    narration: `Refund ${providerRefundId}`,
    originatorBankCode: '999',
    originatorBankName: 'Wallet',
    originatorAccountName: 'Merchant',
    originatorAccountNumber: '8000000001',
    beneficiaryBankCode: '058',
    beneficiaryBankName: 'GTBank',
    beneficiaryAccountName: 'CUSTOMER 1',
    beneficiaryAccountNumber: '0123456701',
  };
}

function accepted(refundId: string, providerRefundId: string, amountKobo: number): AcceptedRefund {
  return {
    refundId,
    providerRefundId,
    transactionId: 'PLT-1',
    amountKobo,
    acceptedAt: '2026-03-02T10:00:01.000Z',
    acceptedBy: 'answer',
  };
}

const day = (input: {
  records?: WalletTransaction[];
  nearby?: WalletTransaction[];
  refunds?: AcceptedRefund[];
  expectedRefunds?: AcceptedRefund[];
}) =>
  matchDay({
    records: input.records ?? [],
    nearby: input.nearby ?? [],
    payouts: new Map(),
    expected: [],
    refunds: new Map((input.refunds ?? []).map((refund) => [refund.providerRefundId, refund])),
    expectedRefunds: input.expectedRefunds ?? [],
  }).lines;

describe('the statement lines of refund debits', () => {
  const ours = accepted('01JREFUND0000000000000001', 'PRF-1', 50_000);

  it('matches a refund debit of the amount of our refund, naming the refund', () => {
    expect(
      day({ records: [refundRecord('TXN-1', 'PRF-1', 500)], refunds: [ours], expectedRefunds: [ours] }),
    ).toEqual([
      expect.objectContaining({
        kind: StatementLineKind.Matched,
        key: 'TXN-1',
        refundId: ours.refundId,
        amountKobo: 50_000,
      }),
    ]);
  });

  it('reports a refund debit of another amount as amount_mismatch naming the refund and its amount', () => {
    expect(
      day({ records: [refundRecord('TXN-1', 'PRF-1', 600)], refunds: [ours], expectedRefunds: [ours] }),
    ).toEqual([
      expect.objectContaining({
        kind: StatementLineKind.AmountMismatch,
        refundId: ours.refundId,
        amountKobo: 60_000,
        expectedAmountKobo: 50_000,
      }),
    ]);
  });

  it('reports a refund debit that names no refund of ours as provider_not_ours', () => {
    expect(day({ records: [refundRecord('TXN-1', 'PRF-9', 500)], refunds: [ours] })).toEqual([
      expect.objectContaining({ kind: StatementLineKind.ProviderNotOurs, key: 'TXN-1' }),
    ]);
  });

  it('reports a second paid debit of one refund as duplicate, keeping the oldest as matched', () => {
    // Newest first, as the provider lists them: TXN-2 came after TXN-1.
    const lines = day({
      records: [refundRecord('TXN-2', 'PRF-1', 500), refundRecord('TXN-1', 'PRF-1', 500)],
      refunds: [ours],
      expectedRefunds: [ours],
    });
    expect(lines.map((line) => [line.kind, line.key, line.refundId])).toEqual([
      [StatementLineKind.Duplicate, 'TXN-2', ours.refundId],
      [StatementLineKind.Matched, 'TXN-1', ours.refundId],
    ]);
  });

  it('reports a refund accepted on the day with no debit listed as ours_not_at_provider, unless a nearby record explains it', () => {
    expect(day({ refunds: [ours], expectedRefunds: [ours] })).toEqual([
      expect.objectContaining({
        kind: StatementLineKind.OursNotAtProvider,
        key: ours.refundId,
        refundId: ours.refundId,
        amountKobo: 50_000,
      }),
    ]);
    expect(
      day({ nearby: [refundRecord('TXN-1', 'PRF-1', 500)], refunds: [ours], expectedRefunds: [ours] }),
    ).toEqual([]);
  });
});
