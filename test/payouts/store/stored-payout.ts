import type { Payout } from '../../../lib/payouts/model.js';

/** A pending bank-transfer payout as the store holds it, for tests of what the store writes and reads. */
export function storedPayout(id: string, changes: Partial<Payout> = {}): Payout {
  return {
    id,
    idempotencyKey: `key-${id}`,
    origin: 'api',
    requestFingerprint: 'f'.repeat(64),
    instruction: {
      type: 'bank_transfer',
      beneficiary: { bankCode: '058', accountNumber: '0123456789', accountName: 'Ada Supplies' },
    },
    amountKobo: 15_000,
    currency: 'NGN',
    narration: 'March invoice',
    metadata: {},
    status: 'pending',
    version: 1,
    requestedBy: { id: 'alice', kind: 'user' },
    capKey: 'merchant',
    submissionCount: 0,
    createdAt: '2026-03-02T08:00:00.000Z',
    updatedAt: '2026-03-02T08:00:00.000Z',
    ...changes,
  };
}
