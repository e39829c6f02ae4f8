import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderClient } from '../../lib/provider/client.js';
import { REFUND_RECORD_CATEGORY } from '../../lib/provider/contract.js';
import { StaticCredentialsSource } from '../../lib/provider/credentials.js';
import {
  ProviderOutcomeUnknownError,
  ProviderRejectedError,
  ProviderUnavailableError,
} from '../../lib/provider/errors.js';
import { type Sandbox, startSandbox } from '../../lib/sandbox/index.js';

/**
 * The client against the sandbox over real HTTP: both sides implement CONTRACT.md without sharing code, so
 * every success here checks the schemas of one against the responses of the other.
 */
let sandbox: Sandbox;
let client: ProviderClient;
const delays: number[] = [];

beforeAll(async () => {
  sandbox = await startSandbox();
  client = new ProviderClient({
    baseUrl: sandbox.url,
    credentials: new StaticCredentialsSource({ token: sandbox.token, pin: sandbox.pin }),
    retry: { maxAttempts: 3, baseDelayMs: 0, sleep: async (ms) => void delays.push(ms) },
  });
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});
beforeEach(() => {
  sandbox.reset();
  delays.length = 0;
});

const fx = () => sandbox.fixtures();
const bank = () => ({
  bankCode: fx().bankCodes[0] ?? '058',
  accountNumber: '0123456789',
  accountName: 'Ada Obi',
});
const store = () => fx().stores[0] ?? { id: '', walletId: '' };
const child = () => fx().childAccounts[0] ?? { id: '', walletId: '' };

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

describe('contract: every endpoint against the sandbox', () => {
  it('GET /payment-link/transactions', async () => {
    const page = await client.paymentLinks.listTransactions({ perPage: 100 });
    expect(page.items.length).toBeGreaterThan(0);
    expect(page.pagination.perPage).toBe(100);
    expect(page.items.map((tx) => tx.id)).toEqual(
      expect.arrayContaining(fx().paymentLinkTransactions.map((t) => t.id)),
    );
  });

  it('GET /payment-link', async () => {
    const page = await client.paymentLinks.list({ page: 1, perPage: 5 });
    expect(page.message).toBeTypeOf('string');
    expect(page.pagination).toMatchObject({ page: 1, perPage: 5 });
  });

  it('GET /payment-link/payment/status', async () => {
    const reference = fx().paymentLinkPayments[0]?.reference ?? '';
    const { data } = await client.paymentLinks.paymentStatus({ reference });
    expect(data.reference).toBe(reference);
  });

  it('POST /wallet/transfer', async () => {
    const { message, data } = await client.wallets.transfer({
      fromWalletId: fx().merchantWalletId,
      toWalletId: store().walletId,
      amount: 200,
      narration: 'contract transfer',
      metadata: { payoutId: 'p-1' },
    });
    expect(message).toBe('Wallet transfer successfully completed.');
    expect(data).toMatchObject({
      amount: 200,
      toWalletId: store().walletId,
      customerMetadata: { payoutId: 'p-1' },
    });
  });

  it('POST /wallet/credit', async () => {
    const { message, data } = await client.wallets.credit({
      walletId: store().walletId,
      amount: 150,
      narration: 'contract credit',
    });
    expect(message).toBe('Wallet successfully credited.');
    expect(data.amount).toBe(150);
  });

  it('POST /wallet/enable', async () => {
    await client.wallets.credit({ walletId: store().walletId, amount: 150, narration: 'fund' });
    const { message, data } = await client.wallets.debit({
      walletId: store().walletId,
      amount: 100,
      narration: 'contract debit',
    });
    expect(message).toBe('Wallet successfully debitted.');
    expect(data.walletId).toBe(store().walletId);
  });

  it('POST /child/debit', async () => {
    const { message, data } = await client.childAccounts.debit({
      childAccountId: child().id,
      amount: 10.5,
      narration: 'contract child debit',
    });
    expect(message).toBe('Account successful debited');
    expect(data).toMatchObject({ amount: 10.5, childAccountId: child().id });
  });

  it('POST /child/bank', async () => {
    const { data } = await client.childAccounts.bankTransfer({
      childAccountId: child().id,
      amount: 100,
      ...bank(),
      narration: 'contract child bank',
    });
    expect(data.totalCharges).toBe(10.75);
    expect(data.totalCharges).toBe(data.debitCharges + data.bankTransferCharges);
  });

  it('GET /settlement', async () => {
    const page = await client.settlements.list({ perPage: 100 });
    for (const settlement of page.items) {
      expect(settlement.subaccount !== undefined).toBe(settlement.category === 'SUBACCOUNT_SETTLEMENT');
    }
  });

  it('POST /settlement/instant/payout', async () => {
    const { data } = await client.settlements.instantPayout({
      amount: 294.9,
      ...bank(),
      narration: 'contract instant',
    });
    expect(data).toMatchObject({ amount: 294.9, charges: 10.75, totalAmount: 305.65 });
  });

  it('GET /transaction/wallet', async () => {
    await client.wallets.credit({ walletId: store().walletId, amount: 150, narration: 'find me' });
    const page = await client.transactions.listWallet({ walletId: store().walletId, perPage: 100 });
    expect(page.items.some((tx) => tx.narration === 'find me')).toBe(true);
    expect(page.data.totalTransactionValue).toBe(page.data.totalDebitAmount + page.data.totalCreditAmount);
  });

  it('GET /transaction/info', async () => {
    const { data: op } = await client.wallets.credit({
      walletId: store().walletId,
      amount: 150,
      narration: 'info',
    });
    const { message, data } = await client.transactions.info({ transactionId: op.transactionId });
    expect(message).toBeUndefined();
    expect(data.transaction.id).toBe(op.transactionId);
    expect(data.transaction.amountPaid).toBeUndefined();
  });

  it('GET /transaction/info of a payment-link transaction carries its amountPaid (what refunds may return)', async () => {
    for (const tx of fx().paymentLinkTransactions) {
      const { data } = await client.transactions.info({ transactionId: tx.id });
      expect(data.transaction).toMatchObject({
        id: tx.id,
        category: 'paymentLink',
        amountPaid: tx.amountPaid,
      });
    }
  });

  it('GET /payout/details', async () => {
    const { data: op } = await client.settlements.instantPayout({
      amount: 1000,
      ...bank(),
      narration: 'details',
    });
    const { message, data } = await client.payouts.details({ transactionId: op.transactionId });
    expect(message).toBeUndefined();
    expect(data.transaction).toMatchObject({ id: op.transactionId, amount: 1000 });
  });

  it('GET /payout/single/schedule', async () => {
    const page = await client.payouts.listScheduled({ perPage: 100 });
    expect(page.message).toBeUndefined();
    expect(page.pagination.raw.perpage).toBe(100);
  });

  it('GET /payout/single/recurrent', async () => {
    const page = await client.payouts.listRecurrent({});
    expect(page.pagination.perPage).toBe(20);
  });

  it('PATCH /payout/bulk/item', async () => {
    const item = fx().bulkPayoutItems[0];
    const page = await client.bulkPayouts.updateItem({
      bulkPayoutItemId: item?.id ?? '',
      accountNumber: '12',
    });
    const updated = page.items.find((record) => record.id === item?.id);
    expect(updated).toMatchObject({ isValid: false });
    expect(updated?.reason).toBeTypeOf('string');
  });

  it('GET /branch/store', async () => {
    const page = await client.stores.list({});
    expect(page.items.map((s) => s.id)).toEqual(expect.arrayContaining(fx().stores.map((s) => s.id)));
    expect(page.data.totalStoreBalance).toBeTypeOf('number');
  });

  it('GET /branch/store/info', async () => {
    const { data } = await client.stores.info({ storeId: store().id });
    expect(data.wallet.id).toBe(store().walletId);
  });

  it('GET /branch/terminal/usage', async () => {
    const page = await client.stores.terminalUsage({ perPage: 10 });
    expect(page.pagination.perPage).toBe(10);
  });

  it('POST /refund', async () => {
    const tx = fx().paymentLinkTransactions[0];
    const { data } = await client.refunds.create({
      transactionId: tx?.id ?? '',
      amount: 1,
      customerNote: 'sorry',
      merchantNote: 'dup',
    });
    expect(data).toMatchObject({ status: 'pending', amount: 1 });
  });

  it('POST /refund debits the main wallet with a REFUND record whose reference is the refund id', async () => {
    const tx = fx().paymentLinkTransactions[0];
    const { data } = await client.refunds.create({
      transactionId: tx?.id ?? '',
      amount: 12.34,
      customerNote: 'sorry',
      merchantNote: 'dup',
    });
    const page = await client.transactions.listWallet({ walletId: fx().merchantWalletId, type: 'DEBIT' });
    expect(page.items.find((record) => record.reference === data.id)).toMatchObject({
      type: 'DEBIT',
      category: REFUND_RECORD_CATEGORY,
      amount: 12.34,
      charges: 0,
    });
  });

  it('GET /virtual-accounts', async () => {
    const customerReference = fx().virtualAccounts[0]?.customerReference ?? '';
    const { message, data } = await client.virtualAccounts.get({ customerReference });
    expect(message).toBeUndefined();
    expect(data.customerReference).toBe(customerReference);
  });
});

describe('contract: auto-paging and rejections', () => {
  it('walks every page with listAll and stops at totalPages', async () => {
    const first = await client.paymentLinks.listTransactions({ perPage: 2 });
    const all: string[] = [];
    for await (const tx of client.paymentLinks.listAllTransactions({ perPage: 2 }, { maxPages: 1000 }))
      all.push(tx.id);
    expect(all).toHaveLength(first.pagination.totalRecords);
    expect(sandbox.stats().requests['/payment-link/transactions']).toBe(1 + first.pagination.totalPages);
  });

  it('stops at maxPages', async () => {
    const seen: string[] = [];
    for await (const tx of client.paymentLinks.listAllTransactions({ perPage: 1 }, { maxPages: 2 }))
      seen.push(tx.id);
    expect(seen).toHaveLength(2);
  });

  it('maps insufficient balance to a 422 rejection', async () => {
    const error = await failure(
      client.wallets.debit({ walletId: store().walletId, amount: 1_000_000_000, narration: 'too much' }),
    );
    expect(error).toBeInstanceOf(ProviderRejectedError);
    expect(error).toMatchObject({ status: 422, kind: 'unprocessable' });
  });

  it('maps an unknown id to a 404 rejection', async () => {
    const error = await failure(client.transactions.info({ transactionId: 'no-such-transaction' }));
    expect(error).toMatchObject({ status: 404, kind: 'not-found' });
  });

  it('maps a wrong PIN to a 403 rejection', async () => {
    const wrongPin = new ProviderClient({
      baseUrl: sandbox.url,
      credentials: new StaticCredentialsSource({ token: sandbox.token, pin: '9999' }),
    });
    const error = await failure(
      wrongPin.wallets.credit({ walletId: store().walletId, amount: 1, narration: 'n' }),
    );
    await wrongPin.close();
    expect(error).toMatchObject({ status: 403, kind: 'forbidden' });
  });

  it('maps a wrong token to a final 401 after one refresh', async () => {
    const wrongToken = new ProviderClient({
      baseUrl: sandbox.url,
      credentials: new StaticCredentialsSource({ token: 'wrong-token', pin: sandbox.pin }),
    });
    const error = await failure(wrongToken.stores.list({}));
    await wrongToken.close();
    expect(error).toMatchObject({ status: 401, kind: 'unauthorized', attempts: 1 });
    expect(sandbox.stats().requests['/branch/store']).toBe(2);
  });
});

describe('contract: failure classification under sandbox faults', () => {
  const instant = () =>
    client.settlements.instantPayout({ amount: 500, ...bank(), narration: 'faulted payout' });

  it('error-500 on a POST: outcome unknown, not retried', async () => {
    sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'error-500' });
    const error = await failure(instant());
    expect(error).toBeInstanceOf(ProviderOutcomeUnknownError);
    expect(error).toMatchObject({ reason: 'server-error', status: 500 });
    expect(sandbox.stats().requests['/settlement/instant/payout']).toBe(1);
  });

  it('error-503 on a GET: retried, then succeeds', async () => {
    sandbox.injectFault({ path: '/settlement', fault: 'error-503', times: 2 });
    const page = await client.settlements.list({});
    expect(page.items.length).toBeGreaterThanOrEqual(0);
    expect(sandbox.stats().requests['/settlement']).toBe(3);
  });

  it('reset-before-commit on a POST: outcome unknown (the client cannot know it was before commit)', async () => {
    sandbox.injectFault({ path: '/wallet/transfer', fault: 'reset-before-commit' });
    const error = await failure(
      client.wallets.transfer({
        fromWalletId: fx().merchantWalletId,
        toWalletId: store().walletId,
        amount: 5,
        narration: 'reset',
      }),
    );
    expect(error).toBeInstanceOf(ProviderOutcomeUnknownError);
    expect(sandbox.stats().requests['/wallet/transfer']).toBe(1);
  });

  it('timeout-after-commit on a POST: outcome unknown, and the operation did happen', async () => {
    sandbox.injectFault({ path: '/child/debit', fault: 'timeout-after-commit' });
    const error = await failure(
      client.childAccounts.debit({ childAccountId: child().id, amount: 7, narration: 'committed but lost' }),
    );
    expect(error).toBeInstanceOf(ProviderOutcomeUnknownError);
    const found = await client.transactions.listWallet({ walletId: child().walletId, perPage: 100 });
    expect(found.items.some((tx) => tx.narration === 'committed but lost')).toBe(true);
  });

  it('error-429 on a POST: unavailable with retryAfterMs, not retried', async () => {
    sandbox.injectFault({ path: '/refund', fault: 'error-429' });
    const tx = fx().paymentLinkTransactions[0];
    const error = await failure(
      client.refunds.create({ transactionId: tx?.id ?? '', amount: 1, customerNote: 'c', merchantNote: 'm' }),
    );
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ reason: 'rate-limited', retryAfterMs: 1_000 });
    expect(sandbox.stats().requests['/refund']).toBe(1);
  });

  it('error-429 on a GET: waits Retry-After and retries', async () => {
    sandbox.injectFault({ path: '/branch/store', fault: 'error-429' });
    await client.stores.list({});
    expect(delays).toEqual([1_000]);
    expect(sandbox.stats().requests['/branch/store']).toBe(2);
  });

  it('latency beyond timeoutMs on a POST: outcome unknown', async () => {
    sandbox.injectFault({ path: '/wallet/credit', fault: 'latency', latencyMs: 400 });
    const error = await failure(
      client.wallets.credit({ walletId: store().walletId, amount: 3, narration: 'slow' }, { timeoutMs: 100 }),
    );
    expect(error).toBeInstanceOf(ProviderOutcomeUnknownError);
    expect(error).toMatchObject({ reason: 'timeout' });
    expect(sandbox.stats().requests['/wallet/credit']).toBe(1);
  });

  it('latency beyond timeoutMs on a GET: retried and succeeds', async () => {
    sandbox.injectFault({ path: '/virtual-accounts', fault: 'latency', latencyMs: 400 });
    const customerReference = fx().virtualAccounts[0]?.customerReference ?? '';
    const { data } = await client.virtualAccounts.get({ customerReference }, { timeoutMs: 100 });
    expect(data.customerReference).toBe(customerReference);
    expect(sandbox.stats().requests['/virtual-accounts']).toBe(2);
  });
});
