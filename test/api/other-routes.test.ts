import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes, createApiHandler } from '../../lib/api/index.js';
import { buildOpenApiDocument } from '../../lib/api/openapi.js';
import { apiContextFrom } from '../../lib/api/services-from-runtime.js';
import { freePort } from '../../lib/local/free-port.js';
import { createRuntime } from '../../lib/runtime/runtime.js';
import { CapturingLogger } from '../../lib/shared/logger.js';
import { checkedAgainstContract } from './support/contract.js';
import { type ApiHarness, bankTransfer, call, startApiHarness } from './support/harness.js';

let h: ApiHarness;
let refundable: { id: string; amountPaid: number };
let keyCounter = 0;
const newKey = () => `rf-${Date.now()}-${++keyCounter}`;

beforeAll(async () => {
  h = await startApiHarness();
  const transaction = h.sandbox.fixtures().paymentLinkTransactions.find((t) => t.amountPaid >= 10);
  if (!transaction) throw new Error('the sandbox has no paid payment-link transaction');
  refundable = transaction;
});
afterAll(async () => h?.close());

const refundBody = (overrides: Record<string, unknown> = {}) => ({
  transactionId: refundable.id,
  amount: 500,
  customerNote: 'sorry for the double charge',
  merchantNote: 'duplicate payment',
  ...overrides,
});
const requestRefund = (body: unknown, key = newKey()) =>
  call(h.api, {
    method: 'POST',
    path: '/refunds',
    headers: { 'Idempotency-Key': key },
    body,
    principal: 'dave',
  });

describe('POST /refunds', () => {
  it('records the refund, sends it to the provider in naira, and answers 201 with its provider id', async () => {
    const reply = await requestRefund(refundBody());
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      status: 'pending',
      amount: 500,
      currency: 'NGN',
      transactionId: refundable.id,
      providerRefundId: expect.any(String),
      requestedBy: { id: 'dave' },
    });
    const fetched = await call(h.api, { method: 'GET', path: `/refunds/${reply.body.id}` });
    expect(fetched.status).toBe(200);
    const { audit, ...refund } = fetched.body;
    expect(refund).toEqual(reply.body);
    expect(audit.map((event: { to: string }) => event.to)).toEqual(['requested', 'sending', 'pending']);
    expect(audit[0]).toMatchObject({ sequence: 1, actor: { id: 'dave' } });
  });

  it('answers a replay with 200 and the same refund, without a second provider call', async () => {
    const key = newKey();
    const first = await requestRefund(refundBody(), key);
    const calls = h.sandbox.stats().requests['/refund'];
    const replay = await requestRefund(refundBody(), key);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
    expect(h.sandbox.stats().requests['/refund']).toBe(calls);
  });

  it('answers 409 when the same key comes with a different refund', async () => {
    const key = newKey();
    await requestRefund(refundBody(), key);
    const reply = await requestRefund(refundBody({ amount: 600 }), key);
    expect(reply.status).toBe(409);
    expect(reply.headers['content-type']).toBe('application/problem+json');
  });

  it('refuses a refund of a transaction the provider does not know with a 422 naming transactionId, storing and sending nothing', async () => {
    const calls = h.sandbox.stats().requests['/refund'];
    const before = (await h.items()).length;
    const reply = await requestRefund(refundBody({ transactionId: 'no-such-transaction' }));
    expect(reply.status).toBe(422);
    expect(reply.body.errors).toEqual([{ path: 'transactionId', message: expect.any(String) }]);
    expect(h.sandbox.stats().requests['/refund']).toBe(calls);
    expect((await h.items()).length).toBe(before);
  });

  it.each([
    ['a fractional amount', { amount: 1.5 }, 'amount'],
    ['a missing note', { customerNote: undefined }, 'customerNote'],
    ['an unknown field', { reason: 'x' }, 'reason'],
  ])('refuses %s with a 400 and calls nothing', async (_name, overrides, path) => {
    const calls = h.sandbox.stats().requests['/refund'];
    const reply = await requestRefund(refundBody(overrides));
    expect(reply.status).toBe(400);
    expect(reply.body.errors.map((issue: { path: string }) => issue.path)).toContain(path);
    expect(h.sandbox.stats().requests['/refund']).toBe(calls);
  });

  it('answers 404 for an unknown refund', async () => {
    expect((await call(h.api, { method: 'GET', path: '/refunds/01ARZ3NDEKTSV4RRFFQ69G5FAV' })).status).toBe(
      404,
    );
  });
});

describe('provider read-through views', () => {
  it.each([
    ['/provider/settlements', '/settlement'],
    ['/provider/wallet-transactions', '/transaction/wallet'],
    ['/provider/stores', '/branch/store'],
  ])('%s passes page and perPage to the provider', async (path) => {
    const reply = await call(h.api, { method: 'GET', path, query: 'page=1&perPage=2' });
    expect(reply.status).toBe(200);
    expect(reply.body.items.length).toBeLessThanOrEqual(2);
    expect(reply.body.pagination).toMatchObject({ page: 1, perPage: 2 });
  });

  it('refuses a perPage above 100 without calling the provider', async () => {
    const calls = h.sandbox.stats().requests['/branch/store'];
    const reply = await call(h.api, { method: 'GET', path: '/provider/stores', query: 'perPage=101' });
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0].path).toBe('query.perPage');
    expect(h.sandbox.stats().requests['/branch/store']).toBe(calls);
  });

  it('answers 503 problem when the provider cannot be reached', async () => {
    const port = await freePort(); // nothing listens there
    const runtime = createRuntime(
      {
        TABLE_NAME: h.tableName,
        DYNAMODB_ENDPOINT: 'http://127.0.0.1:1',
        PROVIDER_BASE_URL: `http://127.0.0.1:${port}`,
        PROVIDER_TOKEN: 't',
        PROVIDER_PIN: 'p',
      },
      { logger: new CapturingLogger() },
    );
    try {
      const api = checkedAgainstContract(createApiHandler(apiContextFrom(runtime)));
      const reply = await call(api, { method: 'GET', path: '/provider/settlements' });
      expect(reply.status).toBe(503);
      expect(reply.headers['content-type']).toBe('application/problem+json');
    } finally {
      await runtime.close();
    }
  });
});

describe('principal', () => {
  it('in AWS mode records the IAM principal and ignores X-Ops-Principal', async () => {
    const aws = checkedAgainstContract(
      createApiHandler({
        ...apiContextFrom(h.runtime),
        mode: 'aws',
        apiRoles: { 'user/ops-alice': ['requester'] },
      }),
    );
    const arn = 'arn:aws:iam::123456789012:user/ops-alice';
    const reply = await call(aws, {
      method: 'POST',
      path: '/payouts',
      headers: { 'Idempotency-Key': newKey() },
      body: bankTransfer(),
      principal: 'mallory',
      iamUserArn: arn,
    });
    expect(reply.status).toBe(201);
    expect(reply.body.requestedBy).toEqual({ id: arn, kind: 'user' });
  });

  it('in AWS mode answers 401 when the request carries no IAM principal', async () => {
    const aws = checkedAgainstContract(createApiHandler({ ...apiContextFrom(h.runtime), mode: 'aws' }));
    const reply = await call(aws, { method: 'POST', path: '/controls/pause', body: { reason: 'x' } });
    expect(reply.status).toBe(401);
  });
});

describe('meta and unknown routes', () => {
  it('GET /health answers ok', async () => {
    expect(await call(h.api, { method: 'GET', path: '/health' })).toMatchObject({
      status: 200,
      body: { status: 'ok' },
    });
  });

  it('GET /health?deep=true reads the table and the provider once each and answers ok', async () => {
    const reply = await call(h.api, { method: 'GET', path: '/health', query: 'deep=true' });
    expect(reply).toMatchObject({
      status: 200,
      body: { status: 'ok', checks: { table: { status: 'ok' }, provider: { status: 'ok' } } },
    });
  });

  it('/health stays green with a wrong provider token: the deep check answers 503 naming the token, without revealing it', async () => {
    const wrong = await startApiHarness({ env: { PROVIDER_TOKEN: 'not-the-token' } });
    try {
      expect(await call(wrong.api, { method: 'GET', path: '/health' })).toMatchObject({ status: 200 });
      const deep = await call(wrong.api, { method: 'GET', path: '/health', query: 'deep=true' });
      expect(deep.status).toBe(503);
      expect(deep.body.checks.table).toEqual({ status: 'ok' });
      expect(deep.body.checks.provider.status).toBe('failed');
      expect(deep.body.checks.provider.detail).toContain('refuses the token');
      expect(JSON.stringify(deep.body)).not.toContain('not-the-token');
    } finally {
      await wrong.close();
    }
  });

  it('the deep health check names the table when the table cannot be read', async () => {
    const missing = await startApiHarness({ env: { TABLE_NAME: 'no-such-table' } });
    try {
      const deep = await call(missing.api, { method: 'GET', path: '/health', query: 'deep=true' });
      expect(deep.status).toBe(503);
      expect(deep.body.checks.table.detail).toContain('ResourceNotFoundException');
      expect(deep.body.checks.provider).toEqual({ status: 'ok' });
    } finally {
      await missing.close();
    }
  });

  it('GET /openapi.json serves the same document as the committed docs/openapi.json', async () => {
    const reply = await call(h.api, { method: 'GET', path: '/openapi.json' });
    expect(reply.status).toBe(200);
    const committed = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
    expect(reply.body).toEqual(committed);
    expect(committed).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });

  it('documents every route the router serves in the OpenAPI document', () => {
    const paths: Record<string, Record<string, unknown>> = buildOpenApiDocument().paths;
    const missing = apiRoutes
      .filter((route) => !paths[route.path]?.[route.method.toLowerCase()])
      .map((route) => `${route.method} ${route.path}`);
    expect(missing).toEqual([]);
  });

  it('answers an unexpected failure with a 500 problem that reveals nothing of it, and logs it', async () => {
    const logger = new CapturingLogger();
    const broken: any = {
      ...apiContextFrom(h.runtime),
      logger,
      payouts: {
        controls: async () => {
          throw new Error('table arn:aws:dynamodb:secret-table is gone');
        },
      },
    };
    const reply = await call(checkedAgainstContract(createApiHandler(broken)), {
      method: 'GET',
      path: '/controls',
    });
    expect(reply.status).toBe(500);
    expect(reply.headers['content-type']).toBe('application/problem+json');
    expect(JSON.stringify(reply.body)).not.toContain('secret-table');
    expect(logger.entries.some((entry) => entry.level === 'error')).toBe(true);
  });

  it('answers 404 problem for an unknown path and 405 with Allow for a wrong method', async () => {
    const unknown = await call(h.api, { method: 'GET', path: '/nowhere' });
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toBe('application/problem+json');
    const wrong = await call(h.api, { method: 'DELETE', path: '/payouts' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('POST, GET');
  });
});
