import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox, SandboxFixtures } from '../../lib/sandbox/index.js';
import { type CallOptions, call, get, payoutBody, start } from './support.js';

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

const transfer = (overrides: Record<string, unknown> = {}) => ({
  amount: 100,
  pin: '0000',
  narration: 'n',
  fromWalletId: fx.stores[0]!.walletId,
  toWalletId: fx.stores[1]!.walletId,
  ...overrides,
});

/** Sends a request that must be rejected; asserts the status, the error body and that nothing changed. */
async function expectRejected(
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  options: CallOptions,
  status: number,
  messagePart?: string,
): Promise<void> {
  const before = sandbox.ledger();
  const transactionsBefore = (await get(sandbox, '/transaction/wallet', { perPage: 100 })).body.data
    .totalRecords;
  const res = await call(sandbox, method, path, options);
  expect(res.status).toBe(status);
  expect(res.body.status).toBe(false);
  expect(typeof res.body.message).toBe('string');
  expect(res.body).not.toHaveProperty('data');
  if (messagePart) expect(res.body.message).toContain(messagePart);
  expect(sandbox.ledger()).toEqual(before);
  expect((await get(sandbox, '/transaction/wallet', { perPage: 100 })).body.data.totalRecords).toBe(
    transactionsBefore,
  );
}

describe('401: missing or wrong bearer token', () => {
  it('rejects a request without Authorization and changes nothing', async () => {
    await expectRejected('POST', '/wallet/transfer', { body: transfer(), token: null }, 401);
  });
  it('rejects a wrong token on every kind of endpoint', async () => {
    await expectRejected('POST', '/settlement/instant/payout', { body: payoutBody(), token: 'nope' }, 401);
    await expectRejected('GET', '/settlement', { token: 'nope' }, 401);
  });
});

describe('400: invalid body or query, naming the field', () => {
  it.each([
    ['malformed JSON', { rawBody: '{"amount": 1,' }, 'JSON'],
    ['a body that is not an object', { rawBody: '[1,2]' }, 'object'],
    ['a missing amount', { body: { amount: undefined } }, 'amount'],
    ['a string amount', { body: { amount: '100' } }, 'amount'],
    ['a fractional amount on an integer endpoint', { body: { amount: 100.5 } }, 'amount'],
    ['a zero amount', { body: { amount: 0 } }, 'amount'],
    ['a negative amount', { body: { amount: -5 } }, 'amount'],
    ['a missing pin', { body: { pin: undefined } }, 'pin'],
    ['a numeric pin', { body: { pin: 0 } }, 'pin'],
    ['an empty narration', { body: { narration: '' } }, 'narration'],
    ['a narration over 100 characters', { body: { narration: 'x'.repeat(101) } }, 'narration'],
    ['metadata that is not an object', { body: { metadata: [1] } }, 'metadata'],
    ['a missing toWalletId', { body: { toWalletId: undefined } }, 'toWalletId'],
  ])('rejects %s on /wallet/transfer', async (_name, options, field) => {
    const body = 'body' in options ? transfer(options.body as Record<string, unknown>) : undefined;
    const opts = 'rawBody' in options ? { rawBody: options.rawBody as string } : { body };
    await expectRejected('POST', '/wallet/transfer', opts, 400, field);
  });

  it.each([
    ['a 9-digit account number', { accountNumber: '012345678' }, 'accountNumber'],
    ['an account number with letters', { accountNumber: '01234567AB' }, 'accountNumber'],
    ['more than two decimals', { amount: 10.005 }, 'amount'],
    ['a malformed bank code', { bankCode: '05' }, 'bankCode'],
    ['a missing accountName', { accountName: undefined }, 'accountName'],
  ])('rejects %s on /settlement/instant/payout', async (_name, overrides, field) => {
    await expectRejected('POST', '/settlement/instant/payout', { body: payoutBody(overrides) }, 400, field);
  });

  it.each([
    [{ page: 0 }, 'page'],
    [{ page: 'x' }, 'page'],
    [{ perPage: 0 }, 'perPage'],
    [{ perPage: 101 }, 'perPage'],
    [{ perPage: 1.5 }, 'perPage'],
  ])('rejects the pagination query %j', async (query, field) => {
    await expectRejected('GET', '/payment-link', { query }, 400, field);
  });

  it('rejects unknown filter values and malformed dates', async () => {
    await expectRejected('GET', '/settlement', { query: { status: 'PENDING' } }, 400, 'status');
    await expectRejected('GET', '/settlement', { query: { category: 'X' } }, 400, 'category');
    await expectRejected('GET', '/transaction/wallet', { query: { type: 'debit' } }, 400, 'type');
    await expectRejected(
      'GET',
      '/transaction/wallet',
      { query: { startDate: 'yesterday' } },
      400,
      'startDate',
    );
    await expectRejected(
      'GET',
      '/payout/single/schedule',
      { query: { startDate: '2025-01-01' } },
      400,
      'startDate',
    );
    await expectRejected('GET', '/branch/store/info', { query: { storeId: 'abc' } }, 400, 'storeId');
    await expectRejected('GET', '/virtual-accounts', {}, 400, 'customerReference');
    await expectRejected('GET', '/transaction/info', {}, 400, 'transactionId');
  });

  it('rejects malformed JSON in the body of a GET', async () => {
    await expectRejected('GET', '/payment-link', { rawBody: '{' }, 400, 'JSON');
  });
});

describe('403: wrong PIN', () => {
  it.each(['/wallet/transfer', '/wallet/credit', '/wallet/enable'])(
    'rejects a wrong pin on %s',
    async (path) => {
      const body = { ...transfer({ pin: '9999' }), walletId: fx.stores[0]!.walletId };
      await expectRejected('POST', path, { body }, 403, 'pin');
    },
  );
});

describe('404: unknown ids', () => {
  it('rejects unknown wallets, child accounts, transactions, stores and references', async () => {
    const ghost = '00000000-0000-4000-8000-000000000000';
    await expectRejected(
      'POST',
      '/wallet/transfer',
      { body: transfer({ toWalletId: ghost }) },
      404,
      'toWalletId',
    );
    await expectRejected('POST', '/wallet/credit', { body: transfer({ walletId: ghost }) }, 404, 'walletId');
    await expectRejected(
      'POST',
      '/child/debit',
      { body: { childAccountId: ghost, amount: 1, narration: 'n' } },
      404,
    );
    await expectRejected('POST', '/child/bank', { body: { childAccountId: ghost, ...payoutBody() } }, 404);
    await expectRejected('GET', '/transaction/info', { query: { transactionId: ghost } }, 404);
    await expectRejected('GET', '/payout/details', { query: { transactionId: ghost } }, 404);
    await expectRejected('GET', '/branch/store/info', { query: { storeId: '9999' } }, 404);
    await expectRejected('GET', '/virtual-accounts', { query: { customerReference: 'nope' } }, 404);
    await expectRejected('GET', '/payment-link/payment/status', { query: { reference: 'nope' } }, 404);
    await expectRejected('GET', '/transaction/wallet', { query: { walletId: ghost } }, 404);
    await expectRejected(
      'POST',
      '/refund',
      {
        body: { transactionId: ghost, amount: 1, customerNote: '', merchantNote: '' },
      },
      404,
    );
    await expectRejected('PATCH', '/payout/bulk/item', { body: { bulkPayoutItemId: ghost } }, 404);
  });

  it('does not read a wallet transfer through /payout/details', async () => {
    const res = await call(sandbox, 'POST', '/wallet/transfer', { body: transfer() });
    await expectRejected(
      'GET',
      '/payout/details',
      { query: { transactionId: res.body.data.transactionId } },
      404,
    );
  });
});

describe('422: broken business rules', () => {
  it('rejects a transfer above the balance and moves nothing', async () => {
    const poor = fx.childAccounts[2]!;
    await expectRejected(
      'POST',
      '/wallet/transfer',
      { body: transfer({ fromWalletId: poor.walletId, amount: 1001 }) },
      422,
      'insufficient balance',
    );
  });

  it('rejects a bank transfer when the balance covers the amount but not the charges', async () => {
    const poor = fx.childAccounts[2]!;
    await expectRejected(
      'POST',
      '/child/bank',
      { body: { childAccountId: poor.id, ...payoutBody({ amount: 1000 }) } },
      422,
      'insufficient balance',
    );
  });

  it('rejects a transfer to the same wallet', async () => {
    const w = fx.stores[0]!.walletId;
    await expectRejected(
      'POST',
      '/wallet/transfer',
      { body: transfer({ fromWalletId: w, toWalletId: w }) },
      422,
    );
  });

  it('rejects an unknown bank code on both payouts', async () => {
    await expectRejected(
      'POST',
      '/settlement/instant/payout',
      { body: payoutBody({ bankCode: '999' }) },
      422,
      'bankCode',
    );
    await expectRejected(
      'POST',
      '/child/bank',
      { body: { childAccountId: fx.childAccounts[0]!.id, ...payoutBody({ bankCode: '123456' }) } },
      422,
      'bankCode',
    );
  });

  it('rejects a refund above the amount paid', async () => {
    const paid = fx.paymentLinkTransactions.find((t) => t.amountPaid > 0)!;
    await expectRejected(
      'POST',
      '/refund',
      {
        body: {
          transactionId: paid.id,
          amount: paid.amountPaid + 0.01,
          customerNote: 'c',
          merchantNote: 'm',
        },
      },
      422,
      'amount',
    );
  });
});

describe('routing', () => {
  it('answers 404 for an unknown path and 405 for a wrong method', async () => {
    expect((await call(sandbox, 'GET', '/nope')).status).toBe(404);
    expect((await call(sandbox, 'GET', '/wallet/transfer')).status).toBe(405);
  });
});
