import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox, SandboxFixtures } from '../../lib/sandbox/index.js';
import { call, get, post, start } from './support.js';

let sandbox: Sandbox;
let fx: SandboxFixtures;

beforeAll(async () => {
  sandbox = await start();
});
beforeEach(() => {
  sandbox.reset();
  fx = sandbox.fixtures();
});
afterAll(() => sandbox.close());

const patch = (body: Record<string, unknown>) => call(sandbox, 'PATCH', '/payout/bulk/item', { body });

describe('PATCH /payout/bulk/item', () => {
  it('fixes an invalid item and answers the validation records of its whole bulk payout', async () => {
    const invalid = fx.bulkPayoutItems.find((i) => !i.isValid)!;
    const siblings = fx.bulkPayoutItems.filter((i) => i.bulkPayoutId === invalid.bulkPayoutId);
    const res = await patch({
      bulkPayoutItemId: invalid.id,
      accountNumber: '0011223344',
      bankCode: '058',
      amount: 100,
    });
    expect(res.status).toBe(200);
    const { records, ...page } = res.body.data;
    expect(page).toEqual({ page: 1, size: siblings.length, totalRecords: siblings.length, totalPages: 1 });
    expect(records.map((r: any) => r.id).sort()).toEqual(siblings.map((s) => s.id).sort());
    const updated = records.find((r: any) => r.id === invalid.id);
    expect(updated).toMatchObject({
      isValid: true,
      reason: null,
      accountNumber: '0011223344',
      bankCode: '058',
      bankName: 'Guaranty Trust Bank',
    });
    expect(Object.keys(updated).sort()).toEqual(
      ['accountName', 'accountNumber', 'bankCode', 'bankName', 'createdAt', 'id', 'isValid', 'reason'].sort(),
    );
  });

  it('saves an item that fails validation with isValid false and a reason', async () => {
    const valid = fx.bulkPayoutItems.find((i) => i.isValid)!;
    const res = await patch({ bulkPayoutItemId: valid.id, bankCode: '999' });
    const updated = res.body.data.records.find((r: any) => r.id === valid.id);
    expect(updated).toMatchObject({ isValid: false, bankCode: '999' });
    expect(updated.reason).toContain('bank code');
    expect(sandbox.fixtures().bulkPayoutItems.find((i) => i.id === valid.id)?.isValid).toBe(false);
  });

  it('rejects a fractional amount and wrong types with 400 and keeps the item', async () => {
    const item = fx.bulkPayoutItems[0]!;
    expect((await patch({ bulkPayoutItemId: item.id, amount: 10.5 })).status).toBe(400);
    expect((await patch({ bulkPayoutItemId: item.id, accountNumber: 1234567890 })).status).toBe(400);
    expect((await patch({})).status).toBe(400);
    expect(sandbox.fixtures().bulkPayoutItems).toEqual(fx.bulkPayoutItems);
  });
});

describe('POST /refund', () => {
  const mainBalance = () =>
    sandbox.ledger().wallets.find((w) => w.id === fx.merchantWalletId)?.balance ?? Number.NaN;

  it('creates a pending refund up to the amount paid, debiting the main wallet with a REFUND record named by its id', async () => {
    const paid = fx.paymentLinkTransactions.find((t) => t.amountPaid === 294.9)!;
    const before = mainBalance();
    const res = await post(sandbox, '/refund', {
      transactionId: paid.id,
      amount: 294.9,
      customerNote: 'wrong item',
      merchantNote: 'approved',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      transactionId: paid.id,
      amount: 294.9,
      status: 'pending',
      deletedAt: null,
      merchantId: fx.merchantId,
      customerNote: 'wrong item',
      merchantNote: 'approved',
    });
    expect(res.body.data.createdAt).toBe(res.body.data.updatedAt);
    expect(mainBalance()).toBeCloseTo(before - 294.9, 2);
    const listed = await get(sandbox, '/transaction/wallet', {
      walletId: fx.merchantWalletId,
      type: 'DEBIT',
    });
    expect(listed.body.data.transactions[0]).toMatchObject({
      type: 'DEBIT',
      category: 'REFUND',
      status: 'SUCCESS',
      amount: 294.9,
      charges: 0,
      settledAmount: 294.9,
      reference: res.body.data.id,
      narration: `Refund ${res.body.data.id}`,
      createdAt: res.body.data.createdAt,
    });
    const record = listed.body.data.transactions[0];
    expect(sandbox.ledger().operations.at(-1)).toMatchObject({
      transactionId: record.id,
      path: '/refund',
      amount: 294.9,
      charges: 0,
    });
    // A refund's record is a wallet transaction, not a payout.
    expect(
      (await get(sandbox, '/transaction/info', { transactionId: record.id })).body.data.transaction,
    ).toMatchObject({
      category: 'REFUND',
      narration: `Refund ${res.body.data.id}`,
    });
    expect((await get(sandbox, '/payout/details', { transactionId: record.id })).status).toBe(404);
  });

  it('refuses a refund the main wallet cannot cover with 422, recording and debiting nothing', async () => {
    const paid = fx.paymentLinkTransactions.find((t) => t.amountPaid === 294.9)!;
    const drain = await post(sandbox, '/wallet/transfer', {
      amount: Math.floor(mainBalance()) - 100,
      pin: '0000',
      narration: 'empty the main wallet',
      fromWalletId: fx.merchantWalletId,
      toWalletId: fx.stores[0]!.walletId,
    });
    expect(drain.status).toBe(200);
    const before = sandbox.ledger();
    const res = await post(sandbox, '/refund', {
      transactionId: paid.id,
      amount: 294.9,
      customerNote: 'wrong item',
      merchantNote: 'approved',
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('insufficient balance');
    expect(sandbox.ledger()).toEqual(before);
  });

  it('rejects a refund without notes with 400', async () => {
    const res = await post(sandbox, '/refund', {
      transactionId: fx.paymentLinkTransactions[0]!.id,
      amount: 1,
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('customerNote');
  });
});
