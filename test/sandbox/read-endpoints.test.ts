import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox, SandboxFixtures } from '../../lib/sandbox/index.js';
import { call, get, keysOf, start } from './support.js';

let sandbox: Sandbox;
let fx: SandboxFixtures;

beforeAll(async () => {
  sandbox = await start();
  fx = sandbox.fixtures();
});
afterAll(() => sandbox.close());

const UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const isNewestFirst = (dates: string[]) =>
  dates.every((d, i) => i === 0 || Date.parse(dates[i - 1]!) >= Date.parse(d));

describe('GET /payment-link/transactions', () => {
  it('lists card and bank payments in their own shapes, newest first', async () => {
    const res = await get(sandbox, '/payment-link/transactions');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: true, message: expect.any(String) });
    const { transactions, ...page } = res.body.data;
    expect(page).toEqual({ page: 1, size: 20, totalRecords: transactions.length, totalPages: 1 });
    expect(isNewestFirst(transactions.map((t: any) => t.createdAt))).toBe(true);
    const card = transactions.find((t: any) => t.paymentMethod === 'Card');
    expect(card).toMatchObject({
      scheme: 'VERVE',
      currency: 'NGN',
      category: 'paymentLink',
      bearer: 'account',
    });
    for (const key of [
      'rrn',
      'last4',
      'cardNumber',
      'terminalId',
      'hasActiveSubaccount',
      'subaccountShare',
      'subaccountSettlement',
    ]) {
      expect(card).toHaveProperty(key);
    }
    expect(card).not.toHaveProperty('subAccountShare');
    expect(transactions.some((t: any) => t.cardNumber === '')).toBe(true);
    const bank = transactions.filter((t: any) => t.paymentMethod === 'Bank');
    expect(bank.some((t: any) => typeof t.fields?.customerEmail === 'string')).toBe(true);
    expect(bank.some((t: any) => typeof t.email === 'string' && t.fields === undefined)).toBe(true);
    for (const t of bank) {
      expect(t).toHaveProperty('subAccountShare');
      expect(t).not.toHaveProperty('subaccountShare');
      expect(t).toMatchObject({ isPaymentLink: true, originatorBankVerificationNumber: '' });
    }
    expect(transactions.some((t: any) => t.status === null)).toBe(true);
    expect(transactions.some((t: any) => t.amount === 294.9)).toBe(true);
    for (const t of transactions) {
      expect(t.createdAt).toMatch(UTC_MS);
      expect(t.merchant).toEqual({ id: fx.merchantId, businessName: expect.any(String) });
    }
  });

  it('answers a page past the end with an empty list and the true totals', async () => {
    const res = await get(sandbox, '/payment-link/transactions', { page: 99, perPage: 2 });
    expect(res.body.data).toMatchObject({
      page: 99,
      size: 2,
      totalRecords: 6,
      totalPages: 3,
      transactions: [],
    });
  });

  it('pages through every record exactly once', async () => {
    const ids: string[] = [];
    for (const page of [1, 2, 3, 4]) {
      ids.push(
        ...(
          await get(sandbox, '/payment-link/transactions', { page, perPage: 2 })
        ).body.data.transactions.map((t: any) => t.id),
      );
    }
    expect(new Set(ids).size).toBe(6);
    expect(ids).toHaveLength(6);
  });
});

describe('GET /payment-link', () => {
  it('lists active links on the pay host with both bearers', async () => {
    const res = await get(sandbox, '/payment-link', { perPage: 100 });
    const { links } = res.body.data;
    expect(keysOf(links[0])).toEqual([
      'amount',
      'bearer',
      'createdAt',
      'hasPaid',
      'id',
      'link',
      'name',
      'status',
    ]);
    expect(new Set(links.map((l: any) => l.bearer))).toEqual(new Set(['account', 'subaccount']));
    for (const l of links) {
      expect(l.status).toBe('ACTIVE');
      expect(l.link).toMatch(/^https:\/\/pay\.sandbox\.invalid\//);
    }
  });
});

describe('GET /payment-link/payment/status', () => {
  it('reads a payment by reference with its metadata', async () => {
    const reference = fx.paymentLinkPayments[0]!.reference;
    const res = await get(sandbox, '/payment-link/payment/status', { reference });
    expect(res.body.data).toMatchObject({
      reference,
      mode: 'SANDBOX',
      type: 'CREDIT',
      category: 'BANK_FUNDING',
      status: 'SUCCESS',
      walletType: 'DYNAMIC',
      externalTransactionId: null,
      deletedAt: null,
      metadata: { paymentMethod: 'Bank Transfer', isPaymentLink: true },
    });
  });
});

describe('stores and terminals', () => {
  it('lists stores with the total balance of every store wallet', async () => {
    const res = await get(sandbox, '/branch/store', { perPage: 1 });
    const { stores, totalStoreBalance, ...page } = res.body.data;
    expect(page).toEqual({ page: 1, size: 1, totalRecords: 3, totalPages: 3 });
    const walletIds = new Set(fx.stores.map((s) => s.walletId));
    const expected = sandbox
      .ledger()
      .wallets.filter((w) => walletIds.has(w.id))
      .reduce((sum, w) => sum + w.balance * 100, 0);
    expect(Math.round(totalStoreBalance * 100)).toBe(Math.round(expected));
    expect(keysOf(stores[0])).toEqual(
      ['address', 'code', 'createdAt', 'email', 'id', 'name', 'phoneNumber', 'walletId', 'website'].sort(),
    );
  });

  it('reads one store with agents and an ACTIVE wallet', async () => {
    const res = await get(sandbox, '/branch/store/info', { storeId: '1001' });
    expect(res.body.data).toMatchObject({
      id: '1001',
      wallet: { id: fx.stores[0]!.walletId, status: 'ACTIVE' },
    });
    expect(res.body.data.agents.length).toBeGreaterThan(0);
    expect(keysOf(res.body.data.agents[0])).toEqual(['createdAt', 'email', 'firstName', 'id', 'lastName']);
    expect(res.body.data.wallet.bookedBalance).toBe(res.body.data.wallet.availableBalance);
  });

  it('lists terminal usages with store, terminal and agent', async () => {
    const res = await get(sandbox, '/branch/terminal/usage');
    const usage = res.body.data.usages[0];
    expect(keysOf(usage)).toEqual(['agent', 'createdAt', 'id', 'store', 'terminal']);
    expect(keysOf(usage.agent)).toEqual(['createdAt', 'firstName', 'id', 'lastName']);
  });
});

describe('GET /settlement', () => {
  it('covers all four categories and both statuses, a zero amount, and sub-account fields only where due', async () => {
    const res = await get(sandbox, '/settlement', { perPage: 100 });
    const list = res.body.data.settlements;
    expect(new Set(list.map((s: any) => s.category))).toEqual(
      new Set(['MERCHANT_SETTLEMENT', 'SUBACCOUNT_SETTLEMENT', 'INSTANT_SETTLEMENT', 'CARD_SETTLEMENT']),
    );
    expect(new Set(list.map((s: any) => s.status))).toEqual(new Set(['SUCCESSFUL', 'FAILED']));
    expect(list.some((s: any) => s.amount === 0)).toBe(true);
    for (const s of list) {
      expect(s.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const sub = s.category === 'SUBACCOUNT_SETTLEMENT';
      expect('subaccountId' in s).toBe(sub);
      expect('subaccount' in s).toBe(sub);
    }
  });

  it('filters by status and category', async () => {
    const res = await get(sandbox, '/settlement', { status: 'FAILED', category: 'CARD_SETTLEMENT' });
    expect(res.body.data.totalRecords).toBe(1);
    expect(res.body.data.settlements[0]).toMatchObject({ status: 'FAILED', category: 'CARD_SETTLEMENT' });
  });
});

describe('single payout lists (no message, perpage)', () => {
  it('lists recurrent payouts', async () => {
    const res = await get(sandbox, '/payout/single/recurrent');
    expect(res.body).not.toHaveProperty('message');
    const { records, ...page } = res.body.data;
    expect(page).toEqual({ page: 1, perpage: 20, totalRecords: 2, totalPages: 1 });
    expect(records[0]).toMatchObject({ status: 'CANCELLED', interval: 'Daily', metadata: null });
  });

  it('lists scheduled payouts newest scheduleDate first; cancelled ones have no transactionId', async () => {
    const res = await get(sandbox, '/payout/single/schedule');
    expect(res.body).not.toHaveProperty('message');
    const { records } = res.body.data;
    expect(res.body.data).not.toHaveProperty('size');
    expect(isNewestFirst(records.map((r: any) => r.scheduleDate))).toBe(true);
    expect(new Set(records.map((r: any) => r.status))).toEqual(new Set(['DISPATCHED', 'CANCELLED']));
    for (const r of records) expect(r.transactionId === null).toBe(r.status === 'CANCELLED');
  });

  it('filters scheduled payouts by status and by inclusive epoch-millisecond dates', async () => {
    const at = Date.parse('2025-02-25T09:00:00.000Z');
    const res = await get(sandbox, '/payout/single/schedule', {
      startDate: at,
      endDate: at,
      status: 'DISPATCHED',
    });
    expect(res.body.data.totalRecords).toBe(1);
    expect(res.body.data.records[0].scheduleDate).toBe('2025-02-25T09:00:00.000Z');
  });
});

describe('GET /virtual-accounts', () => {
  it('reads an UNUSED virtual account by customer reference, without message', async () => {
    const customerReference = fx.virtualAccounts[0]!.customerReference;
    const res = await get(sandbox, '/virtual-accounts', { customerReference });
    expect(res.body).not.toHaveProperty('message');
    expect(res.body.data).toMatchObject({ customerReference, status: 'UNUSED', currentUsage: 0, tier: 1 });
    expect(res.body.data.id).toMatch(UUID);
  });
});

describe('GET requests without a body', () => {
  it('are accepted like the ones carrying {}', async () => {
    const res = await fetch(`${sandbox.url}/payment-link`, {
      headers: { authorization: `Bearer ${sandbox.token}` },
    });
    expect(res.status).toBe(200);
  });
});

describe('fixtures', () => {
  it('names every resource tests need, with numeric store ids and UUID-shaped other ids', async () => {
    const res = await call(sandbox, 'GET', '/__sandbox/fixtures', { token: null });
    expect(res.body).toEqual(fx);
    expect(fx.merchantWalletId).toMatch(UUID);
    expect(fx.stores.length).toBeGreaterThanOrEqual(2);
    for (const s of fx.stores) expect(s.id).toMatch(/^\d+$/);
    expect(fx.childAccounts.length).toBeGreaterThanOrEqual(2);
    expect(fx.bulkPayoutItems.some((i) => !i.isValid)).toBe(true);
    expect(fx.bankCodes).toEqual(expect.arrayContaining(['058', '044', '011', '033', '057', '232', '50515']));
    const main = sandbox.ledger().wallets.find((w) => w.id === fx.merchantWalletId);
    expect(main?.balance).toBe(1_000_000_000);
  });
});
