import { describe, expect, it } from 'vitest';
import { ProviderClient } from '../../lib/provider/client.js';
import { StaticCredentialsSource } from '../../lib/provider/credentials.js';
import { ProviderMalformedResponseError } from '../../lib/provider/errors.js';
import type { TransportRequest } from '../../lib/provider/transport.js';
import { bankPayment, bodies, cardPayment, olderBankPayment } from './support/payloads.js';
import { ok, StubTransport } from './support/stub-transport.js';

const ROUTES: Record<string, keyof typeof bodies> = {
  'GET /payment-link/transactions': 'paymentLinkTransactions',
  'GET /payment-link': 'paymentLinks',
  'GET /payment-link/payment/status': 'paymentStatus',
  'POST /wallet/transfer': 'walletTransfer',
  'POST /wallet/credit': 'walletCredit',
  'POST /wallet/enable': 'walletDebit',
  'POST /child/debit': 'childDebit',
  'POST /child/bank': 'childBank',
  'GET /settlement': 'settlements',
  'POST /settlement/instant/payout': 'instantPayout',
  'GET /transaction/wallet': 'walletTransactions',
  'GET /transaction/info': 'transactionInfo',
  'GET /payout/details': 'payoutDetails',
  'GET /payout/single/schedule': 'scheduledPayouts',
  'GET /payout/single/recurrent': 'recurrentPayouts',
  'PATCH /payout/bulk/item': 'bulkPayoutItem',
  'GET /branch/store': 'stores',
  'GET /branch/store/info': 'storeInfo',
  'GET /branch/terminal/usage': 'terminalUsage',
  'POST /refund': 'refund',
  'GET /virtual-accounts': 'virtualAccount',
};

function routeOf(request: TransportRequest): string {
  return `${request.method} ${request.path.split('?')[0]}`;
}

/** A client whose transport answers each endpoint with its sample, optionally edited. */
function clientWith(edit: (route: string, body: unknown) => unknown = (_route, body) => body) {
  const transport = new StubTransport((request) => {
    const route = routeOf(request);
    const key = ROUTES[route];
    if (!key) throw new Error(`no sample for ${route}`);
    return ok(edit(route, structuredClone(bodies[key])));
  });
  const client = new ProviderClient({
    baseUrl: 'http://127.0.0.1:1',
    credentials: new StaticCredentialsSource({ token: 't', pin: 'p' }),
    transport,
    retry: { maxAttempts: 1 },
  });
  return { client, transport };
}

/** One call of each of the 21 methods. */
const CALLS = {
  'GET /payment-link/transactions': (c: ProviderClient) => c.paymentLinks.listTransactions({}),
  'GET /payment-link': (c: ProviderClient) => c.paymentLinks.list({}),
  'GET /payment-link/payment/status': (c: ProviderClient) =>
    c.paymentLinks.paymentStatus({ reference: 'ref-bank' }),
  'POST /wallet/transfer': (c: ProviderClient) =>
    c.wallets.transfer({ fromWalletId: 'w-1', toWalletId: 'w-2', amount: 200, narration: 'payout p-1' }),
  'POST /wallet/credit': (c: ProviderClient) =>
    c.wallets.credit({ walletId: 'w-2', amount: 200, narration: 'credit' }),
  'POST /wallet/enable': (c: ProviderClient) =>
    c.wallets.debit({ walletId: 'w-2', amount: 200, narration: 'debit' }),
  'POST /child/debit': (c: ProviderClient) =>
    c.childAccounts.debit({ childAccountId: 'c-1', amount: 150.5, narration: 'fees' }),
  'POST /child/bank': (c: ProviderClient) =>
    c.childAccounts.bankTransfer({
      childAccountId: 'c-1',
      amount: 5000,
      bankCode: '058',
      accountNumber: '0123456789',
      accountName: 'Ada Obi',
      narration: 'payout p-2',
    }),
  'GET /settlement': (c: ProviderClient) => c.settlements.list({}),
  'POST /settlement/instant/payout': (c: ProviderClient) =>
    c.settlements.instantPayout({
      amount: 294.9,
      bankCode: '058',
      accountNumber: '0123456789',
      accountName: 'Ada Obi',
      narration: 'settle s-1',
    }),
  'GET /transaction/wallet': (c: ProviderClient) => c.transactions.listWallet({}),
  'GET /transaction/info': (c: ProviderClient) => c.transactions.info({ transactionId: 't-5' }),
  'GET /payout/details': (c: ProviderClient) => c.payouts.details({ transactionId: 't-6' }),
  'GET /payout/single/schedule': (c: ProviderClient) => c.payouts.listScheduled({}),
  'GET /payout/single/recurrent': (c: ProviderClient) => c.payouts.listRecurrent({}),
  'PATCH /payout/bulk/item': (c: ProviderClient) =>
    c.bulkPayouts.updateItem({ bulkPayoutItemId: 'b-1', amount: 300 }),
  'GET /branch/store': (c: ProviderClient) => c.stores.list({}),
  'GET /branch/store/info': (c: ProviderClient) => c.stores.info({ storeId: '1001' }),
  'GET /branch/terminal/usage': (c: ProviderClient) => c.stores.terminalUsage({}),
  'POST /refund': (c: ProviderClient) =>
    c.refunds.create({ transactionId: 'tx-bank', amount: 100, customerNote: 'sorry', merchantNote: 'dup' }),
  'GET /virtual-accounts': (c: ProviderClient) => c.virtualAccounts.get({ customerReference: 'cust-1' }),
} as const;

const NO_MESSAGE = [
  'GET /transaction/info',
  'GET /payout/details',
  'GET /payout/single/recurrent',
  'GET /payout/single/schedule',
  'GET /virtual-accounts',
];

async function malformed(promise: Promise<unknown>): Promise<ProviderMalformedResponseError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderMalformedResponseError);
  if (!(error instanceof ProviderMalformedResponseError)) throw new Error('unreachable');
  return error;
}

describe('response schemas', () => {
  it('cover all 21 endpoints', () => {
    expect(Object.keys(CALLS)).toHaveLength(21);
  });

  for (const [route, call] of Object.entries(CALLS)) {
    it(`parses the sample of ${route}`, async () => {
      const { client, transport } = clientWith();
      const result = await call(client);
      expect(result.data).toBeTypeOf('object');
      expect(routeOf(transport.requests[0] as TransportRequest)).toBe(route);
      if (NO_MESSAGE.includes(route)) expect(result.message).toBeUndefined();
      else expect(result.message).toBeTypeOf('string');
    });
  }

  for (const route of NO_MESSAGE) {
    it(`tolerates a message on ${route} anyway`, async () => {
      const { client } = clientWith((_r, body) => ({ ...(body as object), message: 'hello' }));
      const result = await CALLS[route as keyof typeof CALLS](client);
      expect(result.message).toBe('hello');
    });
  }

  it('requires message on the endpoints that send one', async () => {
    const { client } = clientWith((_r, body) => ({ ...(body as object), message: undefined }));
    const error = await malformed(client.settlements.list({}));
    expect(error.issues).toEqual([{ path: 'message', message: 'expected string, received undefined' }]);
  });

  it('requires status: true in a success envelope', async () => {
    const { client } = clientWith((_r, body) => ({ ...(body as object), status: false }));
    const error = await malformed(client.stores.list({}));
    expect(error.message).toContain('status: expected true');
  });

  it('normalises perpage on the single-payout lists and keeps the raw block', async () => {
    const { client } = clientWith();
    const page = await client.payouts.listScheduled({});
    expect(page.pagination).toEqual({
      page: 1,
      perPage: 20,
      totalRecords: 1,
      totalPages: 1,
      raw: { page: 1, perpage: 20, totalRecords: 1, totalPages: 1 },
    });
    const recurrent = await client.payouts.listRecurrent({});
    expect(recurrent.pagination.perPage).toBe(20);
  });

  it('normalises size on the other lists', async () => {
    const { client } = clientWith();
    const page = await client.settlements.list({});
    expect(page.pagination).toMatchObject({ perPage: 100, totalRecords: 2, raw: { size: 100 } });
    expect(page.items).toHaveLength(2);
  });

  it('rejects size on a perpage list', async () => {
    const { client } = clientWith((_r, body) => {
      const { perpage, ...rest } = (body as { data: { perpage: number } }).data;
      return { status: true, data: { ...rest, size: perpage } };
    });
    const error = await malformed(client.payouts.listRecurrent({}));
    expect(error.issues[0]?.path).toBe('data.perpage');
  });

  it('reads card and bank payments, both share capitalisations and both email shapes', async () => {
    const { client } = clientWith();
    const { items } = await client.paymentLinks.listTransactions({});
    const [card, bank, older] = items;
    expect(card).toMatchObject({ kind: 'card', last4: '1234', cardNumber: '', subaccountShare: 0 });
    expect(card?.shares).toEqual({ subAccountShare: 0, subAccountSettlement: 0 });
    expect(bank).toMatchObject({ kind: 'bank', status: null, customerEmail: 'ada@example.com' });
    expect(bank?.shares).toEqual({ subAccountShare: 50, subAccountSettlement: 49.5 });
    expect(older?.customerEmail).toBe('old@example.com');
    expect(bank?.amount).toBe(294.9);
  });

  it('rejects a payment-link transaction with neither capitalisation of the share', async () => {
    const { client } = clientWith((_r, body) => {
      const { subAccountShare: _drop, ...rest } = bankPayment;
      return {
        ...(body as object),
        data: { page: 1, size: 20, totalRecords: 1, totalPages: 1, transactions: [rest] },
      };
    });
    const error = await malformed(client.paymentLinks.listTransactions({}));
    expect(error.issues[0]?.path).toBe('data.transactions[0].subAccountShare');
  });

  it('accepts null status and null paymentMethod on payment-link transactions', async () => {
    const tx = { ...cardPayment, status: null, paymentMethod: null };
    const { client } = clientWith(() => ({
      status: true,
      message: 'ok',
      data: { page: 1, size: 20, totalRecords: 1, totalPages: 1, transactions: [tx, olderBankPayment] },
    }));
    const { items } = await client.paymentLinks.listTransactions({});
    expect(items[0]?.status).toBeNull();
  });

  it('accepts +01:00 offset timestamps without milliseconds in wallet operations', async () => {
    const { client } = clientWith();
    const { data } = await client.wallets.transfer({
      fromWalletId: 'a',
      toWalletId: 'b',
      amount: 1,
      narration: 'n',
    });
    expect(data.paidAt).toBe('2024-05-02T11:11:12+01:00');
  });

  it('rejects a paidAt that is not a timestamp', async () => {
    const { client } = clientWith((_r, body) => {
      const b = body as { data: Record<string, unknown> };
      b.data.paidAt = '02/05/2024';
      return b;
    });
    const error = await malformed(client.wallets.credit({ walletId: 'a', amount: 1, narration: 'n' }));
    expect(error.issues[0]?.path).toBe('data.paidAt');
  });

  it('accepts subaccount only on SUBACCOUNT_SETTLEMENT', async () => {
    const withSubaccount = (category: string, subaccount: unknown) => () => ({
      status: true,
      message: 'ok',
      data: {
        page: 1,
        size: 20,
        totalRecords: 1,
        totalPages: 1,
        settlements: [
          {
            id: 's',
            amount: 1,
            status: 'SUCCESSFUL',
            date: '2024-05-01',
            charges: 0,
            category,
            createdAt: '2024-05-01T00:00:00.000Z',
            subaccount,
          },
        ],
      },
    });
    const misplaced = await malformed(
      clientWith(withSubaccount('MERCHANT_SETTLEMENT', { id: 'x', name: 'y' })).client.settlements.list({}),
    );
    expect(misplaced.issues[0]?.path).toBe('data.settlements[0].subaccount');
    const missing = await malformed(
      clientWith(withSubaccount('SUBACCOUNT_SETTLEMENT', undefined)).client.settlements.list({}),
    );
    expect(missing.issues[0]?.path).toBe('data.settlements[0].subaccount');
  });

  it('rejects a settlement date that is not YYYY-MM-DD', async () => {
    const { client } = clientWith((_r, body) => {
      const b = body as { data: { settlements: Record<string, unknown>[] } };
      (b.data.settlements[0] as Record<string, unknown>).date = '2024-05-01T00:00:00Z';
      return b;
    });
    const error = await malformed(client.settlements.list({}));
    expect(error.issues[0]?.path).toBe('data.settlements[0].date');
  });

  it('accepts the nullables the interface names and rejects null elsewhere', async () => {
    const { client } = clientWith();
    const scheduled = await client.payouts.listScheduled({});
    expect(scheduled.items[0]).toMatchObject({
      email: null,
      transactionId: null,
      accountName: null,
      narration: null,
      metadata: null,
    });
    const stores = await client.stores.list({});
    expect(stores.items[0]).toMatchObject({ code: null, email: null });
    const nulled = clientWith((_r, body) => {
      const b = body as { data: { stores: Record<string, unknown>[] } };
      (b.data.stores[0] as Record<string, unknown>).walletId = null;
      return b;
    });
    const error = await malformed(nulled.client.stores.list({}));
    expect(error.issues[0]).toEqual({
      path: 'data.stores[0].walletId',
      message: 'expected string, received null',
    });
  });

  it('keeps unknown extra fields', async () => {
    const { client } = clientWith((_r, body) => {
      const b = body as { data: Record<string, unknown> };
      b.data.brandNewField = 'x';
      return b;
    });
    const { data } = await client.virtualAccounts.get({ customerReference: 'cust-1' });
    expect(data).toMatchObject({ brandNewField: 'x', tier: 1 });
  });

  it('names the field path of a wrong type', async () => {
    const { client } = clientWith((_r, body) => {
      const b = body as { data: { transactions: Record<string, unknown>[] } };
      (b.data.transactions[0] as Record<string, unknown>).amount = '200.00';
      return b;
    });
    const error = await malformed(client.transactions.listWallet({}));
    expect(error.message).toContain('data.transactions[0].amount: expected number');
    expect(error.code).toBe('PROVIDER_MALFORMED_RESPONSE');
    expect(error.status).toBe(200);
  });

  it('names the field path of a missing field', async () => {
    const { client } = clientWith((_r, body) => {
      const b = body as { data: { transaction: Record<string, unknown> } };
      delete b.data.transaction.amountProcessed;
      return b;
    });
    const error = await malformed(client.payouts.details({ transactionId: 't-6' }));
    expect(error.issues).toContainEqual({
      path: 'data.transaction.amountProcessed',
      message: 'expected number, received undefined',
    });
  });

  it('rejects a non-integer where the interface says integer', async () => {
    const { client } = clientWith((_r, body) => {
      const b = body as { data: Record<string, unknown> };
      b.data.tier = 1.5;
      return b;
    });
    const error = await malformed(client.virtualAccounts.get({ customerReference: 'cust-1' }));
    expect(error.issues[0]?.path).toBe('data.tier');
  });

  it('reports a body that is not JSON', async () => {
    const transport = new StubTransport(() => ({ status: 200, headers: {}, body: '<html>' }));
    const client = new ProviderClient({
      baseUrl: 'http://127.0.0.1:1',
      credentials: new StaticCredentialsSource({ token: 't', pin: 'p' }),
      transport,
    });
    const error = await malformed(client.stores.list({}));
    expect(error.issues).toEqual([{ path: '(body)', message: 'expected JSON' }]);
  });

  it('checks the instant payout metadata echo', async () => {
    const { client } = clientWith((_r, body) => {
      const b = body as { data: { customerMetadata: Record<string, unknown> } };
      b.data.customerMetadata.isInstantSettlement = 'yes';
      return b;
    });
    const error = await malformed(
      client.settlements.instantPayout({
        amount: 1,
        bankCode: '058',
        accountNumber: '0123456789',
        accountName: 'A',
        narration: 'n',
      }),
    );
    expect(error.issues[0]?.path).toBe('data.customerMetadata.isInstantSettlement');
  });
});
