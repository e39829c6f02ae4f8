import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toKobo, toNaira } from '../../lib/money.js';
import type { Sandbox, SandboxFixtures } from '../../lib/sandbox/index.js';
import { call, get, keysOf, payoutBody, post, start } from './support.js';

let sandbox: Sandbox;
let fx: SandboxFixtures;

const balance = (walletId: string): number => {
  const wallet = sandbox.ledger().wallets.find((w) => w.id === walletId);
  if (!wallet) throw new Error(`no wallet ${walletId}`);
  return wallet.balance;
};

const BANK_FIELDS = [
  'beneficiaryAccountName',
  'beneficiaryAccountNumber',
  'beneficiaryBankCode',
  'beneficiaryBankName',
  'originatorAccountName',
  'originatorAccountNumber',
];
const ORIGINATOR_BANK = ['originatorBankCode', 'originatorBankName'];
const RESULT_COMMON = [
  'paidAt',
  'transactionId',
  'status',
  'amount',
  'charges',
  'totalAmount',
  'description',
  'narration',
];

beforeAll(async () => {
  sandbox = await start();
});
beforeEach(() => {
  sandbox.reset();
  fx = sandbox.fixtures();
});
afterAll(() => sandbox.close());

describe('POST /wallet/transfer', () => {
  it('moves the amount between two wallets and answers the spec message and fields', async () => {
    const [store1, store2] = fx.stores;
    const before = [balance(store1!.walletId), balance(store2!.walletId)];
    const res = await post(sandbox, '/wallet/transfer', {
      amount: 1500,
      pin: '0000',
      narration: 'float top-up',
      metadata: { payoutId: 'p-1' },
      fromWalletId: store1!.walletId,
      toWalletId: store2!.walletId,
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(true);
    expect(res.body.message).toBe('Wallet transfer successfully completed.');
    const data = res.body.data;
    expect(keysOf(data)).toEqual(
      [
        ...RESULT_COMMON,
        ...BANK_FIELDS,
        ...ORIGINATOR_BANK,
        'reference',
        'merchantId',
        'walletId',
        'fromWalletId',
        'toWalletId',
        'providerWalletId',
        'category',
        'customerMetadata',
      ].sort(),
    );
    expect(data).toMatchObject({
      status: 'SUCCESS',
      amount: 1500,
      charges: 0,
      totalAmount: 1500,
      category: 'WALLET_TO_WALLET',
      narration: 'float top-up',
      customerMetadata: { payoutId: 'p-1' },
      fromWalletId: store1!.walletId,
      toWalletId: store2!.walletId,
      paidAt: '2026-11-22T10:15:30+01:00',
    });
    expect([balance(store1!.walletId), balance(store2!.walletId)]).toEqual([
      before[0]! - 1500,
      before[1]! + 1500,
    ]);
  });

  it('records a DEBIT on the source and a CREDIT on the destination, both with the narration', async () => {
    const [store1, store2] = fx.stores;
    const res = await post(sandbox, '/wallet/transfer', {
      amount: 10,
      pin: '0000',
      narration: 'find-me-later',
      fromWalletId: store1!.walletId,
      toWalletId: store2!.walletId,
    });
    const debits = await get(sandbox, '/transaction/wallet', { walletId: store1!.walletId, type: 'DEBIT' });
    const credits = await get(sandbox, '/transaction/wallet', { walletId: store2!.walletId, type: 'CREDIT' });
    expect(debits.body.data.transactions[0]).toMatchObject({
      id: res.body.data.transactionId,
      type: 'DEBIT',
      category: 'WALLET_TO_WALLET',
      narration: 'find-me-later',
      settledAmount: 10,
      sessionId: null,
    });
    expect(credits.body.data.transactions[0]).toMatchObject({ type: 'CREDIT', narration: 'find-me-later' });
  });
});

describe('POST /wallet/credit and /wallet/enable', () => {
  it('credit moves money from the main wallet to the wallet and echoes requestMetadata', async () => {
    const store = fx.stores[0]!;
    const [main, target] = [balance(fx.merchantWalletId), balance(store.walletId)];
    const res = await post(sandbox, '/wallet/credit', {
      amount: 2000,
      pin: '0000',
      narration: 'credit store',
      walletId: store.walletId,
      metadata: { k: 'v' },
    });
    expect(res.body.message).toBe('Wallet successfully credited.');
    expect(res.body.data.requestMetadata).toEqual({ k: 'v' });
    expect(res.body.data).not.toHaveProperty('customerMetadata');
    expect(res.body.data.walletId).toBe(store.walletId);
    expect(balance(fx.merchantWalletId)).toBe(main - 2000);
    expect(balance(store.walletId)).toBe(target + 2000);
    const records = await get(sandbox, '/transaction/wallet', { perPage: 2 });
    expect(records.body.data.transactions.map((t: any) => `${t.type} ${t.category}`).sort()).toEqual([
      'CREDIT MERCHANT_CREDIT',
      'DEBIT MERCHANT_DEBIT',
    ]);
  });

  it('enable debits the wallet into the main wallet and echoes customerMetadata', async () => {
    const store = fx.stores[1]!;
    const [main, source] = [balance(fx.merchantWalletId), balance(store.walletId)];
    const res = await post(sandbox, '/wallet/enable', {
      amount: 300,
      pin: '0000',
      narration: 'sweep',
      walletId: store.walletId,
    });
    expect(res.body.message).toBe('Wallet successfully debitted.');
    expect(res.body.data.customerMetadata).toEqual({});
    expect(res.body.data).not.toHaveProperty('requestMetadata');
    expect(balance(store.walletId)).toBe(source - 300);
    expect(balance(fx.merchantWalletId)).toBe(main + 300);
  });
});

describe('POST /settlement/instant/payout', () => {
  it('debits amount plus fee and VAT from the main wallet and omits the originator bank', async () => {
    const main = balance(fx.merchantWalletId);
    const res = await post(sandbox, '/settlement/instant/payout', payoutBody({ amount: 5000 }));
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(keysOf(data)).toEqual(
      [
        ...RESULT_COMMON,
        ...BANK_FIELDS,
        'reference',
        'customerMetadata',
        'originatorWalletId',
        'sessionId',
      ].sort(),
    );
    expect(data).toMatchObject({
      amount: 5000,
      charges: 10.75,
      totalAmount: 5010.75,
      beneficiaryBankName: 'Guaranty Trust Bank',
    });
    expect(data.customerMetadata).toMatchObject({
      payoutId: 'po_1',
      isInstantSettlement: true,
      isMerchantSettlement: true,
    });
    expect(typeof data.customerMetadata.settlementId).toBe('string');
    expect(res.body.message).toContain('NGN 5,000.00');
    expect(res.body.message).toContain('JOHN DOE');
    expect(res.body.message).toContain('0123456789');
    expect(res.body.message).toContain('Guaranty Trust Bank');
    expect(res.body.message).toContain(data.sessionId);
    expect(balance(fx.merchantWalletId)).toBe(main - 5010.75);
  });

  it.each([
    [5000, 10.75],
    [5000.01, 26.88],
    [50000, 26.88],
    [50000.01, 53.75],
    [294.9, 10.75],
  ])('charges a payout of %d exactly %d', async (amount, charges) => {
    const res = await post(sandbox, '/settlement/instant/payout', payoutBody({ amount }));
    expect(res.body.data.charges).toBe(charges);
    expect(res.body.data.totalAmount).toBe(Math.round((amount + charges) * 100) / 100);
  });

  it('is readable through /transaction/info, /payout/details and listed as an instant settlement', async () => {
    const res = await post(
      sandbox,
      '/settlement/instant/payout',
      payoutBody({ amount: 60000, narration: 'po-42' }),
    );
    const id = res.body.data.transactionId;
    const info = await get(sandbox, '/transaction/info', { transactionId: id });
    expect(info.body).not.toHaveProperty('message');
    expect(info.body.data.transaction).toMatchObject({
      id,
      type: 'DEBIT',
      category: 'BANK_TRANSFER',
      amount: 60000,
      charges: 53.75,
      amountProcessed: 60053.75,
      narration: 'po-42',
    });
    const details = await get(sandbox, '/payout/details', { transactionId: id });
    expect(details.body).not.toHaveProperty('message');
    expect(details.body.data.transaction).toMatchObject({
      id,
      vat: 3.75,
      charges: 53.75,
      amountProcessed: 60053.75,
      recipientBankCode: '058',
      recipientAccountNumber: '0123456789',
      sessionId: res.body.data.sessionId,
      narration: 'po-42',
    });
    const settlements = await get(sandbox, '/settlement', { category: 'INSTANT_SETTLEMENT', perPage: 1 });
    expect(settlements.body.data.settlements[0]).toMatchObject({
      id: res.body.data.customerMetadata.settlementId,
      amount: 60000,
      status: 'SUCCESSFUL',
      date: '2026-11-22',
    });
  });
});

describe('POST /child/debit and /child/bank', () => {
  it('child debit moves money from the child wallet to the main wallet with child-account fields', async () => {
    const child = fx.childAccounts[0]!;
    const [main, from] = [balance(fx.merchantWalletId), balance(child.walletId)];
    const res = await post(sandbox, '/child/debit', {
      childAccountId: child.id,
      amount: 99.99,
      narration: 'collect',
      metadata: { m: 1 },
    });
    expect(res.body.message).toBe('Account successful debited');
    expect(keysOf(res.body.data)).toEqual(
      [
        ...RESULT_COMMON,
        ...BANK_FIELDS,
        ...ORIGINATOR_BANK,
        'transactionReference',
        'merchantId',
        'walletId',
        'customerMetadata',
        'mode',
        'childAccountId',
        'childAccountName',
        'childAccountNumber',
      ].sort(),
    );
    expect(res.body.data).toMatchObject({ mode: 'SANDBOX', childAccountId: child.id, amount: 99.99 });
    expect(balance(child.walletId)).toBe(from - 99.99);
    expect(balance(fx.merchantWalletId)).toBe(Math.round((main + 99.99) * 100) / 100);
  });

  it('child bank pays amount plus totalCharges = debitCharges + bankTransferCharges', async () => {
    const child = fx.childAccounts[1]!;
    const from = balance(child.walletId);
    const res = await post(sandbox, '/child/bank', {
      childAccountId: child.id,
      ...payoutBody({ amount: 20000 }),
    });
    const data = res.body.data;
    expect(keysOf(data)).toEqual(
      [
        ...RESULT_COMMON,
        ...BANK_FIELDS,
        'reference',
        'originatorWalletId',
        'sessionId',
        'debitCharges',
        'bankTransferCharges',
        'totalCharges',
      ].sort(),
    );
    expect(data).toMatchObject({
      debitCharges: 0,
      bankTransferCharges: 26.88,
      totalCharges: 26.88,
      charges: 26.88,
      totalAmount: 20026.88,
      originatorWalletId: child.walletId,
    });
    expect(balance(child.walletId)).toBe(from - 20026.88);
    const details = await get(sandbox, '/payout/details', { transactionId: data.transactionId });
    expect(details.status).toBe(200);
  });

  it('uses the configured fee table', async () => {
    const custom = await start({ fees: { childBankDebitKobo: 100, walletTransferKobo: 250 } });
    try {
      const f = custom.fixtures();
      const bank = await post(custom, '/child/bank', {
        childAccountId: f.childAccounts[0]!.id,
        ...payoutBody(),
      });
      expect(bank.body.data).toMatchObject({
        debitCharges: 1,
        bankTransferCharges: 10.75,
        totalCharges: 11.75,
      });
      const transfer = await post(custom, '/wallet/transfer', {
        amount: 1,
        pin: '0000',
        narration: 'n',
        fromWalletId: f.merchantWalletId,
        toWalletId: f.stores[0]!.walletId,
      });
      expect(transfer.body.data).toMatchObject({ charges: 2.5, totalAmount: 3.5 });
    } finally {
      await custom.close();
    }
  });
});

describe('GET /transaction/wallet aggregates', () => {
  it('sums every matching record, not only the page', async () => {
    const store = fx.stores[2]!;
    for (const amount of [100, 200, 300]) {
      await post(sandbox, '/wallet/credit', {
        amount,
        pin: '0000',
        narration: `c${amount}`,
        walletId: store.walletId,
      });
    }
    await post(sandbox, '/wallet/enable', {
      amount: 50,
      pin: '0000',
      narration: 'd',
      walletId: store.walletId,
    });
    const res = await get(sandbox, '/transaction/wallet', { walletId: store.walletId, perPage: 1 });
    expect(res.body.data).toMatchObject({
      page: 1,
      size: 1,
      totalRecords: 4,
      totalPages: 4,
      totalCreditAmount: 600,
      totalDebitAmount: 50,
      totalTransactionValue: 650,
      totalTransactionVolume: 4,
    });
    expect(res.body.data.transactions).toHaveLength(1);
    expect(res.body.data.transactions[0].narration).toBe('d');
  });

  it('filters on createdAt with inclusive ISO startDate and endDate', async () => {
    const res = await get(sandbox, '/transaction/wallet', {
      startDate: '2025-01-11T10:00:00.000Z',
      endDate: '2025-01-20T12:00:00.000Z',
    });
    expect(res.body.data.totalTransactionVolume).toBe(4);
    expect(res.body.data.transactions.map((t: any) => t.createdAt)).toEqual([
      '2025-01-20T12:00:00.000Z',
      '2025-01-20T12:00:00.000Z',
      '2025-01-12T10:00:00.000Z',
      '2025-01-11T10:00:00.000Z',
    ]);
  });

  it('gives BANK_FUNDING records their extra fields and CREDIT settledAmount = amount - charges', async () => {
    const res = await get(sandbox, '/transaction/wallet', { walletId: fx.merchantWalletId, type: 'CREDIT' });
    const funding = res.body.data.transactions.find(
      (t: any) => t.category === 'BANK_FUNDING' && t.charges > 0,
    );
    expect(funding).toMatchObject({
      walletType: 'STATIC',
      settledAmount: toNaira(toKobo(funding.amount) - toKobo(funding.charges)),
    });
    for (const key of [
      'paidAt',
      'userId',
      'channelCode',
      'transactionReference',
      'originatorBankVerificationNumber',
    ]) {
      expect(funding).toHaveProperty(key);
    }
  });
});

describe('ledger', () => {
  it('lists every committed operation with its metadata, narration and path', async () => {
    await post(
      sandbox,
      '/settlement/instant/payout',
      payoutBody({ metadata: { payoutId: 'a' }, narration: 'A' }),
    );
    await post(sandbox, '/child/debit', {
      childAccountId: fx.childAccounts[0]!.id,
      amount: 1,
      narration: 'B',
    });
    const ops = sandbox.ledger().operations;
    expect(ops.map((o) => [o.path, o.narration, o.amount])).toEqual([
      ['/settlement/instant/payout', 'A', 5000],
      ['/child/debit', 'B', 1],
    ]);
    expect(ops[0]).toMatchObject({ metadata: { payoutId: 'a' }, charges: 10.75 });
    const overHttp = await call(sandbox, 'GET', '/__sandbox/ledger', { token: null });
    expect(overHttp.body).toEqual(sandbox.ledger());
  });
});
