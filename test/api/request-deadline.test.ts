import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiDeadlines } from '../../lib/api/request-deadline.js';
import {
  type DeadLettered,
  DynamoDbDeadLetterStore,
  withDeadLetter,
} from '../../lib/events/dead-letters/index.js';
import { InvalidEventError } from '../../lib/events/inbound-errors.js';
import { runReconcile, runSweep } from '../../lib/jobs/scheduled.js';
import { servedBy } from '../../lib/local/function-attribution.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { providerOf } from '../../lib/runtime/provider.js';
import { ManualClock } from '../../lib/shared/clock.js';
import { payoutRequested } from '../events/support.js';
import { ledgerEntriesOf } from '../support/engine-harness.js';
import { type SilentServer, startSilentServer } from '../support/silent-server.js';
import { type ApiHarness, bankTransfer, call, startApiHarness } from './support/harness.js';

const INSTANT_PAYOUT = '/settlement/instant/payout';

/** Small figures so the deadlines pass within a test; production's are checked in handler-limits.test.ts. */
const deadlines = (overrides: Partial<ApiDeadlines>): ApiDeadlines => ({
  marginMs: 0,
  localBudgetMs: 3_000,
  sendBeforeDeadlineMs: 2_000,
  sendDeadlineMs: 500,
  ...overrides,
});

let h: ApiHarness;
let clock: ManualClock;
let silent: SilentServer;
let keyCounter = 0;
const newKey = () => `deadline-${Date.now()}-${++keyCounter}`;

beforeAll(async () => {
  clock = new ManualClock(new Date());
  silent = await startSilentServer();
  h = await startApiHarness({
    clock,
    sandbox: { now: () => clock.now() },
    // 4 s to create before the inline send's window closes: room for a loaded machine, which these tests are not
    // about (a create that misses the window rightly answers pending, and the test below would be testing that).
    deadlines: deadlines({ localBudgetMs: 6_000, sendBeforeDeadlineMs: 2_000, sendDeadlineMs: 500 }),
  });
  // One payout first, so the tests below meet the deadlines of a warm function: a cold first request (its modules
  // loading, its first connections, the day's first claim) can take the whole second these small figures leave
  // before the send, and the inline path then rightly answers pending. Cold starts are the benchmark's.
  const warm = await timedCall(h.api, newKey());
  expect(warm.reply.status).toBe(201);
});
afterAll(async () => {
  await h?.close();
  await silent?.close();
});

async function timedCall(api: ApiHarness['api'], key: string) {
  const started = performance.now();
  const reply = await call(api, {
    method: 'POST',
    path: '/payouts',
    headers: { 'Idempotency-Key': key },
    body: bankTransfer(),
    principal: 'alice',
  });
  return { reply, ms: performance.now() - started };
}

/** Lets the engine's clock pass every lease, grace period and wait, then runs the reconciler and the sweeper. */
async function letTimePassAndDecide(): Promise<void> {
  const { config } = payoutEngineOf(h.runtime).ctx;
  clock.advance(
    Math.max(config.submitLeaseMs, config.retryBaseMs * 4, config.reconcileGraceMs) +
      config.reconcileIntervalMs,
  );
  await servedBy('reconcile-payouts', () => runReconcile(payoutEngineOf(h.runtime)));
  await servedBy('sweep-due-payouts', () => runSweep(payoutSweeper(payoutEngineOf(h.runtime)), 60_000));
}

describe('POST /payouts under the request deadline', () => {
  it('answers in time with the payout unknown when the provider is slower than the inline send may take; the reconciler finds it paid, sent once', async () => {
    // The sandbox pays at once and answers 1.5 s later: past the inline send's 500 ms.
    h.sandbox.injectFault({ path: INSTANT_PAYOUT, fault: 'latency', latencyMs: 1_500 });
    const { reply, ms } = await timedCall(h.api, newKey());
    expect(reply.status).toBe(201);
    expect(reply.body.status).toBe('unknown');
    expect(ms).toBeLessThan(6_000);
    // This payout's own entries in the provider's ledger, not a count of every request: the sweep below may also
    // send an earlier test's payout, which is no second send of this one.
    expect(ledgerEntriesOf(h.sandbox, reply.body.id)).toHaveLength(1);

    await letTimePassAndDecide();
    const after = await call(h.api, { method: 'GET', path: `/payouts/${reply.body.id}` });
    expect(after.body.status).toBe('succeeded');
    expect(ledgerEntriesOf(h.sandbox, reply.body.id)).toHaveLength(1);
  });

  it('answers pending, sending nothing, when no time is left to send inline; the sweeper sends it once', async () => {
    const late = await startApiHarness({
      env: { TABLE_NAME: h.tableName },
      deadlines: deadlines({ localBudgetMs: 1_000, sendBeforeDeadlineMs: 1_000 }),
    });
    let payoutId = '';
    try {
      const before = late.sandbox.stats().requests[INSTANT_PAYOUT] ?? 0;
      const { reply } = await timedCall(late.api, newKey());
      expect(reply.status).toBe(201);
      expect(reply.body.status).toBe('pending');
      expect(late.sandbox.stats().requests[INSTANT_PAYOUT] ?? 0).toBe(before);
      payoutId = reply.body.id;
    } finally {
      await late.close();
    }
    // No creator's hold: the next tick sends it.
    await servedBy('sweep-due-payouts', () => runSweep(payoutSweeper(payoutEngineOf(h.runtime)), 60_000));
    await servedBy('sweep-due-payouts', () => runSweep(payoutSweeper(payoutEngineOf(h.runtime)), 60_000));
    expect(ledgerEntriesOf(h.sandbox, payoutId)).toHaveLength(1);
  });

  it('answers 503 request-deadline with Retry-After when the store never answers; the retry with the same key creates exactly one payout', async () => {
    const stuck = await startApiHarness({
      env: { TABLE_NAME: h.tableName, DYNAMODB_ENDPOINT: silent.url },
      deadlines: deadlines({ localBudgetMs: 800, sendBeforeDeadlineMs: 400, sendDeadlineMs: 300 }),
    });
    const key = newKey();
    try {
      const { reply, ms } = await timedCall(stuck.api, key);
      expect(reply.status).toBe(503);
      expect(reply.headers['retry-after']).toBe('5');
      expect(reply.body).toMatchObject({
        type: 'urn:payout-automation:problem:request-deadline',
        status: 503,
      });
      expect(ms).toBeGreaterThanOrEqual(790);
      expect(ms).toBeLessThan(800 + 500);
    } finally {
      await stuck.close();
    }
    const retried = await timedCall(h.api, key);
    expect(retried.reply.status).toBe(201);
    const again = await timedCall(h.api, key);
    expect(again.reply.status).toBe(200);
    expect(again.reply.body.id).toBe(retried.reply.body.id);
    expect(ledgerEntriesOf(h.sandbox, retried.reply.body.id)).toHaveLength(1);
  });

  it('answers 503 when the request outlasts its deadline after creating; the retry with the same key answers that payout, never a second', async () => {
    // Deliberately a send longer than the window it starts in (production's figures forbid it, see
    // test/infra/handler-limits.test.ts): the only way to make a create outlast its request with real parts.
    const slow = await startApiHarness({
      env: { TABLE_NAME: h.tableName },
      // 2 s to create before the send's window closes, then a send of 3 s in the 0.5 s that is left.
      deadlines: deadlines({ localBudgetMs: 2_500, sendBeforeDeadlineMs: 500, sendDeadlineMs: 5_000 }),
    });
    const key = newKey();
    try {
      slow.sandbox.injectFault({ path: INSTANT_PAYOUT, fault: 'latency', latencyMs: 3_000 });
      const { reply, ms } = await timedCall(slow.api, key);
      expect(reply.status).toBe(503);
      expect(ms).toBeLessThan(2_500 + 500);
      const retried = await timedCall(h.api, key);
      expect(retried.reply.status).toBe(200);
      expect(retried.reply.headers['idempotent-replayed']).toBe('true');
      expect(['submitting', 'succeeded']).toContain(retried.reply.body.status);
      expect(slow.sandbox.stats().requests[INSTANT_PAYOUT]).toBe(1);
    } finally {
      await slow.close();
    }
  });
});

describe('the other routes that may send inline, under the request deadline', () => {
  /**
   * A harness on the same table whose every request starts with no time left to send inline (the send window
   * closes as the request begins), and has ample time to answer otherwise.
   */
  const withNoTimeToSend = (env: Record<string, string> = {}) =>
    startApiHarness({
      env: { TABLE_NAME: h.tableName, ...env },
      deadlines: deadlines({ localBudgetMs: 20_000, sendBeforeDeadlineMs: 20_000 }),
    });
  /** Two ticks of the sweeper on the main harness, its clock past the real one the late harness created by. */
  const sweepTwice = async () => {
    clock.advance(Math.max(0, Date.now() + 60_000 - clock.now().getTime()));
    for (let tick = 0; tick < 2; tick++) {
      await servedBy('sweep-due-payouts', () => runSweep(payoutSweeper(payoutEngineOf(h.runtime)), 60_000));
    }
  };

  it('POST /instant-settlements decides the settlement and leaves its payout pending, sending nothing; the sweeper sends it once', async () => {
    let payoutId = '';
    const late = await withNoTimeToSend({
      SETTLEMENT_DESTINATION_BANK_CODE: '058',
      SETTLEMENT_DESTINATION_ACCOUNT_NUMBER: '0987654321',
      SETTLEMENT_DESTINATION_ACCOUNT_NAME: 'Demo Merchant Ltd',
      SETTLEMENT_SINCE: '2025-01-01T00:00:00Z',
    });
    try {
      const { items } = await providerOf(late.runtime).settlements.list({ perPage: 100 });
      const merchant = items.find((s) => s.category === 'MERCHANT_SETTLEMENT' && s.status === 'SUCCESSFUL');
      const before = late.sandbox.stats().requests[INSTANT_PAYOUT] ?? 0;
      const reply = await call(late.api, {
        method: 'POST',
        path: '/instant-settlements',
        principal: 'alice',
        body: { settlementId: merchant?.id },
      });
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ outcome: 'paid', payout: { status: 'pending' } });
      payoutId = reply.body.payout.id;
      expect(late.sandbox.stats().requests[INSTANT_PAYOUT] ?? 0).toBe(before);
    } finally {
      await late.close();
    }
    await sweepTwice();
    expect((await call(h.api, { method: 'GET', path: `/payouts/${payoutId}` })).body.status).toBe(
      'succeeded',
    );
    expect(ledgerEntriesOf(h.sandbox, payoutId)).toHaveLength(1);
  });

  it('POST /dead-letters/{id}/replay creates the payout the event asks for pending, sending nothing; the sweeper sends it once', async () => {
    const idempotencyKey = newKey();
    const late = await withNoTimeToSend();
    try {
      // A letter kept when the event was refused once (here by a handler that refused everything).
      const store = new DynamoDbDeadLetterStore(late.runtime.dynamoDb, late.runtime.tableName);
      const refuse = async (): Promise<never> => {
        throw new InvalidEventError('evt-replay-late', [{ path: 'detail', message: 'refused then' }]);
      };
      const kept = (await withDeadLetter(
        refuse,
        store,
      )(
        payoutRequested('evt-replay-late', {
          version: '1',
          idempotencyKey,
          payout: bankTransfer(),
        }),
      )) as DeadLettered;
      const before = late.sandbox.stats().requests[INSTANT_PAYOUT] ?? 0;
      const reply = await call(late.api, {
        method: 'POST',
        path: `/dead-letters/${kept.id}/replay`,
        principal: 'alice',
      });
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ delivered: true });
      expect(late.sandbox.stats().requests[INSTANT_PAYOUT] ?? 0).toBe(before);
    } finally {
      await late.close();
    }
    await sweepTwice();
    const listed = await call(h.api, { method: 'GET', path: '/payouts', query: 'limit=100' });
    const payout = listed.body.items.find(
      (item: { idempotencyKey: string }) => item.idempotencyKey === idempotencyKey,
    );
    expect(payout?.status).toBe('succeeded');
    expect(ledgerEntriesOf(h.sandbox, payout?.id ?? '')).toHaveLength(1);
  });
});
