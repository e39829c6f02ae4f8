import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiDeadlines } from '../../lib/api/request-deadline.js';
import { providerOf } from '../../lib/runtime/provider.js';
import { ledgerEntriesOf } from '../support/engine-harness.js';
import { type ApiHarness, call, startApiHarness } from './support/harness.js';

const settlementEnv = {
  SETTLEMENT_DESTINATION_BANK_CODE: '058',
  SETTLEMENT_DESTINATION_ACCOUNT_NUMBER: '0987654321',
  SETTLEMENT_DESTINATION_ACCOUNT_NAME: 'Demo Merchant Ltd',
  // The sandbox's settlements are from February 2025: a cutoff before them, as an operator paying history sets.
  SETTLEMENT_SINCE: '2025-01-01T00:00:00Z',
};

describe('instant settlements (ops API)', () => {
  let h: ApiHarness;

  beforeAll(async () => {
    h = await startApiHarness({ env: settlementEnv });
  });
  afterAll(async () => {
    await h.close();
  });

  it('pays a settlement on request, shows its decision, and lists decisions by state, page by page', async () => {
    const { items } = await providerOf(h.runtime).settlements.list({ perPage: 100 });
    const merchant = items.find((s) => s.category === 'MERCHANT_SETTLEMENT' && s.status === 'SUCCESSFUL');
    const failed = items.find((s) => s.category === 'MERCHANT_SETTLEMENT' && s.status === 'FAILED');
    const paid = await call(h.api, {
      method: 'POST',
      path: '/instant-settlements',
      principal: 'alice',
      body: { settlementId: merchant?.id },
    });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({
      outcome: 'paid',
      decision: { decision: 'paid', decidedBy: { id: 'alice' } },
    });
    const skipped = await call(h.api, {
      method: 'POST',
      path: '/instant-settlements',
      principal: 'alice',
      body: { settlementId: failed?.id },
    });
    expect(skipped.body).toMatchObject({
      outcome: 'skipped',
      decision: { code: 'SETTLEMENT_NOT_SUCCESSFUL' },
    });

    const shown = await call(h.api, { method: 'GET', path: `/instant-settlements/${merchant?.id}` });
    expect(shown.body).toMatchObject({ settlementId: merchant?.id, decision: 'paid' });

    const first = await call(h.api, { method: 'GET', path: '/instant-settlements', query: 'limit=1' });
    expect(first.body.items).toHaveLength(1);
    const second = await call(h.api, {
      method: 'GET',
      path: '/instant-settlements',
      query: `limit=1&cursor=${first.body.nextCursor}`,
    });
    expect([first.body.items[0].settlementId, second.body.items[0].settlementId].sort()).toEqual(
      [merchant?.id, failed?.id].sort(),
    );
    const onlyPaid = await call(h.api, { method: 'GET', path: '/instant-settlements', query: 'state=paid' });
    expect(onlyPaid.body.items.map((item: { settlementId: string }) => item.settlementId)).toEqual([
      merchant?.id,
    ]);
  });

  it('answers 400 naming the field for a tampered cursor or an unknown state, never a 500', async () => {
    const tampered = await call(h.api, {
      method: 'GET',
      path: '/instant-settlements',
      query: 'cursor=eyJwayI6MX0',
    });
    expect(tampered.status).toBe(400);
    expect(tampered.body.errors[0].path).toBe('cursor');
    const state = await call(h.api, { method: 'GET', path: '/instant-settlements', query: 'state=maybe' });
    expect(state.status).toBe(400);
    expect(state.body.errors[0].path).toContain('state');
  });

  it('answers 404 for a settlement with neither a decision nor a deferral', async () => {
    const reply = await call(h.api, { method: 'GET', path: '/instant-settlements/no-such-settlement' });
    expect(reply.status).toBe(404);
  });
});

describe('instant settlements not configured', () => {
  it('answers 503 not-configured to every settlement route', async () => {
    const h = await startApiHarness();
    try {
      const list = await call(h.api, { method: 'GET', path: '/instant-settlements' });
      expect(list.status).toBe(503);
      expect(list.body.type).toContain('not-configured');
    } finally {
      await h.close();
    }
  });
});

/** Small figures so the deadlines pass within a test; production's are checked in handler-limits.test.ts. */
const deadlines = (overrides: Partial<ApiDeadlines>): ApiDeadlines => ({
  marginMs: 0,
  localBudgetMs: 3_000,
  sendBeforeDeadlineMs: 2_000,
  sendDeadlineMs: 500,
  ...overrides,
});

describe("POST /instant-settlements: the provider's listing is read within the request's send window", () => {
  /** A harness of its own (table, sandbox) whose every request is bounded by `figures`. */
  async function withDeadlines(figures: Partial<ApiDeadlines>) {
    const harness = await startApiHarness({ env: settlementEnv, deadlines: deadlines(figures) });
    const { items } = await providerOf(harness.runtime).settlements.list({ perPage: 100 });
    const merchant = items.find((s) => s.category === 'MERCHANT_SETTLEMENT' && s.status === 'SUCCESSFUL');
    if (!merchant) throw new Error('the sandbox has no successful merchant settlement');
    const stats = () => harness.sandbox.stats().requests;
    /** The provider's reads of its settlement listing (`GET /settlement`) so far. */
    const reads = () => stats()['/settlement'] ?? 0;
    /** Instant payouts sent to the provider so far. */
    const sent = () => stats()['/settlement/instant/payout'] ?? 0;
    const payOut = async () => {
      const started = performance.now();
      const reply = await call(harness.api, {
        method: 'POST',
        path: '/instant-settlements',
        principal: 'alice',
        body: { settlementId: merchant.id },
      });
      return { reply, ms: performance.now() - started };
    };
    return { harness, settlementId: merchant.id, reads, sent, payOut };
  }

  it('abandons a slow listing with the inline send: 503 request-deadline in time, nothing recorded or sent; the retry pays it once', async () => {
    const slow = await withDeadlines({
      localBudgetMs: 3_000,
      sendBeforeDeadlineMs: 2_000,
      sendDeadlineMs: 500,
    });
    try {
      // The provider answers the listing 2 s late: past the 500 ms an inline send may take, well within the
      // request's 3 s. Without its own bound the read would run to the client's 30 s default, and the request,
      // answered 200 after it, would have decided the settlement with the window passed.
      slow.harness.sandbox.injectFault({
        path: '/settlement',
        method: 'GET',
        fault: 'latency',
        latencyMs: 2_000,
      });
      const readsBefore = slow.reads();
      const sentBefore = slow.sent();
      const itemsBefore = (await slow.harness.items()).length;
      const { reply, ms } = await slow.payOut();
      expect(reply.status).toBe(503);
      expect(reply.headers['retry-after']).toBe('5');
      expect(reply.body).toMatchObject({
        type: 'urn:payout-automation:problem:request-deadline',
        status: 503,
      });
      // Cut at the read's 500 ms (the send's bound), not at the request's 3 s nor the provider's 2 s.
      expect(ms).toBeGreaterThanOrEqual(450);
      expect(ms).toBeLessThan(1_500);
      expect(slow.reads()).toBe(readsBefore + 1);
      // Nothing recorded (no decision, no deferral, no payout: not one item more in the table), nothing sent.
      expect((await slow.harness.items()).length).toBe(itemsBefore);
      const shown = await call(slow.harness.api, {
        method: 'GET',
        path: `/instant-settlements/${slow.settlementId}`,
      });
      expect(shown.status).toBe(404);
      expect(slow.sent()).toBe(sentBefore);

      // The fault was for one read: the retry (the route is idempotent per settlement, it takes no key) reads
      // again, decides and pays once; a further retry answers that decision and pays nothing more.
      const retried = await slow.payOut();
      expect(retried.reply.status).toBe(200);
      expect(retried.reply.body).toMatchObject({ outcome: 'paid', decision: { decision: 'paid' } });
      const payoutId: string = retried.reply.body.payout.id;
      const again = await slow.payOut();
      expect(again.reply.status).toBe(200);
      expect(again.reply.body).toMatchObject({ outcome: 'paid', payout: { id: payoutId } });
      expect(slow.sent()).toBe(sentBefore + 1);
      expect(ledgerEntriesOf(slow.harness.sandbox, payoutId)).toHaveLength(1);
    } finally {
      await slow.harness.close();
    }
  });

  it('reads nothing and records nothing when the window a read must fit has already passed: 503 request-deadline at once', async () => {
    // The send window closed 600 ms before the request began, so even a send started at its last instant (500 ms)
    // would have ended already: no read may start.
    const closed = await withDeadlines({
      localBudgetMs: 1_000,
      sendBeforeDeadlineMs: 1_600,
      sendDeadlineMs: 500,
    });
    try {
      const readsBefore = closed.reads();
      const itemsBefore = (await closed.harness.items()).length;
      const { reply, ms } = await closed.payOut();
      expect(reply.status).toBe(503);
      expect(reply.body.type).toBe('urn:payout-automation:problem:request-deadline');
      expect(ms).toBeLessThan(500);
      expect(closed.reads()).toBe(readsBefore);
      expect((await closed.harness.items()).length).toBe(itemsBefore);
      expect(closed.sent()).toBe(0);
    } finally {
      await closed.harness.close();
    }
  });
});

describe('instant settlements at or above the approval threshold', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness({ env: { ...settlementEnv, APPROVAL_THRESHOLD_KOBO: '100' } });
  });
  afterAll(async () => h?.close());

  it('shows a settlement whose payout waits for a second person as awaiting_approval, not paid, and paid once approved', async () => {
    const { items } = await providerOf(h.runtime).settlements.list({ perPage: 100 });
    const merchant = items.find((s) => s.category === 'MERCHANT_SETTLEMENT' && s.status === 'SUCCESSFUL');
    const requested = await call(h.api, {
      method: 'POST',
      path: '/instant-settlements',
      principal: 'alice',
      body: { settlementId: merchant?.id },
    });
    expect(requested.status).toBe(200);
    expect(requested.body).toMatchObject({
      outcome: 'awaiting_approval',
      decision: { decision: 'awaiting_approval', payoutStatus: 'pending_approval' },
      payout: { status: 'pending_approval' },
    });
    expect(requested.body.decision.reason).toContain('second person');
    const payoutId: string = requested.body.payout.id;
    const shownBy = async () => {
      const shown = await call(h.api, { method: 'GET', path: `/instant-settlements/${merchant?.id}` });
      const listed = await call(h.api, { method: 'GET', path: '/instant-settlements' });
      const paidOnes = await call(h.api, {
        method: 'GET',
        path: '/instant-settlements',
        query: 'state=paid',
      });
      const inList = (reply: typeof listed) =>
        reply.body.items.find((item: { settlementId: string }) => item.settlementId === merchant?.id);
      return [shown.body, inList(listed), inList(paidOnes)];
    };
    for (const shown of await shownBy()) {
      expect(shown).toMatchObject({
        decision: 'awaiting_approval',
        payoutId,
        payoutStatus: 'pending_approval',
      });
    }
    // The same person cannot approve it; a second person does, and only then is the settlement paid.
    const own = await call(h.api, {
      method: 'POST',
      path: `/payouts/${payoutId}/approve`,
      principal: 'alice',
    });
    expect(own.status).toBe(403);
    for (const shown of await shownBy()) expect(shown).toMatchObject({ decision: 'awaiting_approval' });
    const approved = await call(h.api, {
      method: 'POST',
      path: `/payouts/${payoutId}/approve`,
      principal: 'bob',
    });
    expect(approved.status).toBe(200);
    for (const shown of await shownBy()) {
      expect(shown).toMatchObject({ decision: 'paid', payoutId });
      expect(shown.payoutStatus).not.toBe('pending_approval');
    }
    // A trigger again replays the decision, paid now.
    const again = await call(h.api, {
      method: 'POST',
      path: '/instant-settlements',
      principal: 'carol',
      body: { settlementId: merchant?.id },
    });
    expect(again.body).toMatchObject({ outcome: 'paid', decision: { decision: 'paid' } });
  });
});
