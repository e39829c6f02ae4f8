import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../lib/sandbox/index.js';
import { call, get, payoutBody, post, start } from './support.js';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await start();
});
beforeEach(() => {
  sandbox.reset();
});
afterAll(() => sandbox.close());

const addFault = (fault: Record<string, unknown>) =>
  call(sandbox, 'POST', '/__sandbox/faults', { body: fault, token: null });
const payout = (narration = 'po-1') =>
  post(sandbox, '/settlement/instant/payout', payoutBody({ narration, metadata: { payoutId: narration } }));

describe('injected faults', () => {
  it.each([
    ['error-500', 500],
    ['error-503', 503],
  ])('%s answers that status with an error body and commits nothing', async (fault, status) => {
    expect((await addFault({ path: '/settlement/instant/payout', fault })).status).toBe(200);
    const before = sandbox.ledger();
    const res = await payout();
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ status: false });
    expect(sandbox.ledger()).toEqual(before);
  });

  it('error-429 answers 429 with Retry-After: 1 and commits nothing', async () => {
    await addFault({ path: '/settlement/instant/payout', fault: 'error-429' });
    const res = await payout();
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('1');
    expect(sandbox.ledger().operations).toHaveLength(0);
  });

  it('reset-before-commit drops the connection without answering and commits nothing', async () => {
    await addFault({ path: '/settlement/instant/payout', fault: 'reset-before-commit' });
    const before = sandbox.ledger();
    await expect(payout()).rejects.toThrow();
    expect(sandbox.ledger()).toEqual(before);
  });

  it('timeout-after-commit commits the payout, then drops the connection without answering', async () => {
    await addFault({ path: '/settlement/instant/payout', fault: 'timeout-after-commit' });
    await expect(payout('po-committed')).rejects.toThrow();
    const ops = sandbox.ledger().operations;
    expect(ops).toHaveLength(1);
    expect(ops[0]).toMatchObject({ path: '/settlement/instant/payout', narration: 'po-committed' });
    const found = await get(sandbox, '/transaction/wallet', { type: 'DEBIT', perPage: 1 });
    expect(found.body.data.transactions[0]).toMatchObject({
      narration: 'po-committed',
      id: ops[0]!.transactionId,
    });
  });

  it('latency delays the normal answer by latencyMs', async () => {
    await addFault({ path: '/settlement', method: 'GET', fault: 'latency', latencyMs: 150 });
    const started = performance.now();
    const res = await get(sandbox, '/settlement');
    expect(res.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('consumes a fault once by default, so the next request succeeds', async () => {
    await addFault({ path: '/settlement/instant/payout', fault: 'error-503' });
    expect((await payout('a')).status).toBe(503);
    expect((await payout('b')).status).toBe(200);
  });

  it('consumes queued faults in order, per matching request only', async () => {
    await addFault({ path: '/settlement/instant/payout', fault: 'error-500' });
    await addFault({ path: '/settlement/instant/payout', fault: 'error-429', times: 2 });
    expect((await get(sandbox, '/settlement')).status).toBe(200);
    const statuses = [];
    for (const n of [1, 2, 3, 4]) statuses.push((await payout(`p${n}`)).status);
    expect(statuses).toEqual([500, 429, 429, 200]);
  });

  it('matches only the given method', async () => {
    await addFault({ path: '/settlement/instant/payout', method: 'GET', fault: 'error-500' });
    expect((await payout()).status).toBe(200);
  });

  it('with path * and times 0 hits every provider request until cleared', async () => {
    await addFault({ path: '*', fault: 'error-503', times: 0 });
    expect((await get(sandbox, '/payment-link')).status).toBe(503);
    expect((await payout()).status).toBe(503);
    expect((await get(sandbox, '/branch/store')).status).toBe(503);
    expect((await call(sandbox, 'GET', '/__sandbox/fixtures', { token: null })).status).toBe(200);
    expect((await call(sandbox, 'DELETE', '/__sandbox/faults', { token: null })).status).toBe(200);
    expect((await get(sandbox, '/payment-link')).status).toBe(200);
  });

  it('rejects a malformed fault with 400', async () => {
    expect((await addFault({ path: '/x', fault: 'explode' })).status).toBe(400);
    expect((await addFault({ path: 'wallet', fault: 'error-500' })).status).toBe(400);
    expect((await addFault({ path: '/x', fault: 'latency' })).status).toBe(400);
    expect((await addFault({ path: '/x', fault: 'error-500', times: -1 })).status).toBe(400);
  });

  it('can be injected programmatically', async () => {
    sandbox.injectFault({ path: '/child/debit', fault: 'error-500' });
    const fx = sandbox.fixtures();
    const res = await post(sandbox, '/child/debit', {
      childAccountId: fx.childAccounts[0]!.id,
      amount: 1,
      narration: 'n',
    });
    expect(res.status).toBe(500);
  });
});

describe('request counting', () => {
  it('counts provider requests per path, faulted ones included, and not admin calls', async () => {
    await addFault({ path: '/settlement/instant/payout', fault: 'error-500' });
    await payout();
    await payout();
    await get(sandbox, '/settlement');
    const stats = (await call(sandbox, 'GET', '/__sandbox/stats', { token: null })).body;
    expect(stats).toEqual({
      requests: { '/settlement/instant/payout': 2, '/settlement': 1 },
      rateLimited: 0,
    });
    expect(sandbox.stats()).toEqual(stats);
  });
});

describe('reset', () => {
  it('restores balances, records, faults and counts to the seeded state', async () => {
    const seeded = sandbox.ledger();
    const seededList = (await get(sandbox, '/transaction/wallet')).body.data;
    await payout();
    const fx = sandbox.fixtures();
    await call(sandbox, 'PATCH', '/payout/bulk/item', {
      body: { bulkPayoutItemId: fx.bulkPayoutItems[0]!.id, accountNumber: '1' },
    });
    await addFault({ path: '*', fault: 'error-500', times: 0 });
    const res = await call(sandbox, 'POST', '/__sandbox/reset', { token: null });
    expect(res.status).toBe(200);
    expect(sandbox.ledger()).toEqual(seeded);
    expect(sandbox.stats()).toEqual({ requests: {}, rateLimited: 0 });
    expect((await get(sandbox, '/transaction/wallet')).body.data).toEqual(seededList);
    expect(sandbox.fixtures()).toEqual(fx);
  });

  it('yields the same ids after a reset (deterministic seed and counters)', async () => {
    const first = (await payout()).body.data.transactionId;
    sandbox.reset();
    expect((await payout()).body.data.transactionId).toBe(first);
  });
});

describe('configured latency', () => {
  it('adds latencyMs to every provider response but not to admin calls', async () => {
    const slow = await start({ latencyMs: 120 });
    try {
      let started = performance.now();
      await get(slow, '/payment-link');
      expect(performance.now() - started).toBeGreaterThanOrEqual(110);
      started = performance.now();
      await request(`${slow.url}/__sandbox/stats`).then((r) => r.body.text());
      expect(performance.now() - started).toBeLessThan(110);
    } finally {
      await slow.close();
    }
  });
});
