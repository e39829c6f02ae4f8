import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiDeadlines } from '../../lib/api/request-deadline.js';
import { servedBy } from '../../lib/local/function-attribution.js';
import { refundSenderOf } from '../../lib/runtime/refunds.js';
import { ManualClock } from '../../lib/shared/clock.js';
import { type ApiHarness, call, startApiHarness } from './support/harness.js';

/** Refunds pass the one control gate, through the ops API: the refund attacks answer with problems that name the field. */
let h: ApiHarness;
let keys = 0;

beforeAll(async () => {
  h = await startApiHarness({
    env: { MAX_PAYOUT_KOBO: '2000000', APPROVAL_THRESHOLD_KOBO: '1200000' },
  });
});
afterAll(async () => h?.close());

const paid = (naira: number) => {
  const found = h.sandbox.fixtures().paymentLinkTransactions.find((t) => t.amountPaid === naira);
  if (!found) throw new Error(`the sandbox has no transaction with ${naira} paid`);
  return found.id;
};
const refundCalls = () => h.sandbox.stats().requests['/refund'] ?? 0;
const requestRefund = (transactionId: string, amount: number, principal = 'dave') =>
  call(h.api, {
    method: 'POST',
    path: '/refunds',
    headers: { 'Idempotency-Key': `rf-api-${++keys}` },
    body: { transactionId, amount, customerNote: 'sorry', merchantNote: 'double charge' },
    principal,
  });

describe('refund controls through the API', () => {
  it('answers two 10,000 NGN refunds of a 15,000 NGN transaction with 201 then 422 naming amount, sending one', async () => {
    const tx = paid(15_000);
    const before = refundCalls();
    const first = await requestRefund(tx, 1_000_000);
    expect(first.status).toBe(201);
    expect(first.body.status).toBe('pending');
    const second = await requestRefund(tx, 1_000_000);
    expect(second.status).toBe(422);
    expect(second.headers['content-type']).toBe('application/problem+json');
    expect(second.body.errors).toEqual([{ path: 'amount', message: expect.stringContaining('1500000') }]);
    expect(refundCalls()).toBe(before + 1);
  });

  it('answers a refund above the per-payout maximum with a 400 naming amount', async () => {
    const before = refundCalls();
    const reply = await requestRefund(paid(50_000), 2_000_001);
    expect(reply.status).toBe(400);
    expect(reply.body.errors.map((issue: { path: string }) => issue.path)).toEqual(['amount']);
    expect(refundCalls()).toBe(before);
  });

  it('keeps a refund above the threshold for a second person: 403 for its requester, sent once on approval', async () => {
    const before = refundCalls();
    const created = await requestRefund(paid(50_000), 1_500_000, 'dave');
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('pending_approval');
    const path = `/refunds/${created.body.id}/approve`;

    const own = await call(h.api, { method: 'POST', path, principal: 'Dave' });
    expect(own.status).toBe(403);
    expect(refundCalls()).toBe(before);

    const approved = await call(h.api, { method: 'POST', path, principal: 'erin' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      status: 'pending',
      requestedBy: { id: 'dave' },
      approvedBy: { id: 'erin' },
    });
    expect((await call(h.api, { method: 'POST', path, principal: 'frank' })).status).toBe(409);
    expect(refundCalls()).toBe(before + 1);

    const fetched = await call(h.api, { method: 'GET', path: `/refunds/${created.body.id}` });
    expect(fetched.body.audit.map((event: { actor: { id: string } }) => event.actor.id)).toEqual([
      'dave',
      'erin',
      'system:refunds',
      'system:refunds',
    ]);
  });

  it('lets a second person reject a waiting refund with a reason: cancelled for good, audited, never sent', async () => {
    const before = refundCalls();
    const created = await requestRefund(paid(50_000), 1_300_000, 'dave');
    expect(created.body.status).toBe('pending_approval');
    const reject = (principal: string, body: unknown) =>
      call(h.api, { method: 'POST', path: `/refunds/${created.body.id}/reject`, body, principal });
    expect((await reject('dave', { reason: 'mine' })).status).toBe(403);
    expect((await reject('erin', {})).status).toBe(400);

    const rejected = await reject('erin', { reason: 'the customer was refunded by hand' });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({
      status: 'cancelled',
      rejection: { by: { id: 'erin' }, reason: 'the customer was refunded by hand' },
    });
    const approve = {
      method: 'POST',
      path: `/refunds/${created.body.id}/approve`,
      principal: 'frank',
    } as const;
    expect((await call(h.api, approve)).status).toBe(409);
    const fetched = await call(h.api, { method: 'GET', path: `/refunds/${created.body.id}` });
    expect(fetched.body.audit.at(-1)).toMatchObject({
      actor: { id: 'erin' },
      reason: 'rejected by erin: the customer was refunded by hand',
    });
    expect(refundCalls()).toBe(before);
  });

  it('records a refund asked while payouts are paused without sending it', async () => {
    const pause = await call(h.api, {
      method: 'POST',
      path: '/controls/pause',
      body: { reason: 'bank incident' },
      principal: 'ops',
    });
    expect(pause.status).toBe(200);
    try {
      const before = refundCalls();
      const reply = await requestRefund(paid(2_000), 10_000);
      expect(reply.status).toBe(201);
      expect(reply.body.status).toBe('requested');
      expect(refundCalls()).toBe(before);
    } finally {
      await call(h.api, { method: 'POST', path: '/controls/resume', principal: 'ops' });
    }
  });

  it('lists refunds newest first, those waiting for a second person by status, page by page', async () => {
    const held = await requestRefund(paid(50_000), 1_300_000, 'erin');
    expect(held.body.status).toBe('pending_approval');
    const waiting = await call(h.api, { method: 'GET', path: '/refunds', query: 'status=pending_approval' });
    expect(waiting.status).toBe(200);
    expect(waiting.body.items.map((r: { id: string }) => r.id)).toContain(held.body.id);
    expect(waiting.body.items.every((r: { status: string }) => r.status === 'pending_approval')).toBe(true);
    const all = await call(h.api, { method: 'GET', path: '/refunds', query: 'limit=100' });
    const created = all.body.items.map((r: { createdAt: string }) => r.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
    const first = await call(h.api, { method: 'GET', path: '/refunds', query: 'limit=1' });
    const second = await call(h.api, {
      method: 'GET',
      path: '/refunds',
      query: `limit=1&cursor=${first.body.nextCursor}`,
    });
    expect(second.body.items[0].id).toBe(all.body.items[1].id);
    const bad = await call(h.api, { method: 'GET', path: '/refunds', query: 'status=refunded' });
    expect(bad.status).toBe(400);
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

describe('refunds sent inline under the request deadline', () => {
  /**
   * A harness of its own (table, sandbox, and a clock the sweep reads), every request under `figures`: its sweep
   * sees only its own refunds.
   */
  async function withDeadlines(figures: Partial<ApiDeadlines>) {
    const clock = new ManualClock(new Date());
    const harness = await startApiHarness({
      env: { MAX_PAYOUT_KOBO: '2000000', APPROVAL_THRESHOLD_KOBO: '1200000' },
      deadlines: deadlines(figures),
      clock,
      sandbox: { now: () => clock.now() },
    });
    const sent = () => harness.sandbox.stats().requests['/refund'] ?? 0;
    const transaction = (naira: number) => {
      const found = harness.sandbox.fixtures().paymentLinkTransactions.find((t) => t.amountPaid === naira);
      if (!found) throw new Error(`the sandbox has no transaction with ${naira} paid`);
      return found.id;
    };
    const ask = async (
      transactionId: string,
      amount: number,
      principal = 'dave',
      key = `rf-deadline-${Date.now()}-${++keys}`,
    ) => {
      const started = performance.now();
      const reply = await call(harness.api, {
        method: 'POST',
        path: '/refunds',
        headers: { 'Idempotency-Key': key },
        body: { transactionId, amount, customerNote: 'sorry', merchantNote: 'late refund' },
        principal,
      });
      return { reply, ms: performance.now() - started };
    };
    /** The sweep a minute later, when a refund left `requested` is due. */
    const sweepLater = () => {
      clock.advance(61_000);
      return servedBy('sweep-due-payouts', () => refundSenderOf(harness.runtime).sweep());
    };
    /** The provider's reads of a transaction (`GET /transaction/info`) so far. */
    const reads = () => harness.sandbox.stats().requests['/transaction/info'] ?? 0;
    /** Every refund recorded on the harness's own table. */
    const recorded = async () =>
      (await call(harness.api, { method: 'GET', path: '/refunds', query: 'limit=100' })).body.items as {
        id: string;
        idempotencyKey: string;
      }[];
    return { harness, sent, transaction, ask, sweepLater, reads, recorded };
  }

  it('abandons the read of the transaction with the inline send: 503 request-deadline in time, nothing recorded; the retry with the same key makes one refund', async () => {
    const slow = await withDeadlines({
      localBudgetMs: 3_000,
      sendBeforeDeadlineMs: 2_000,
      sendDeadlineMs: 500,
    });
    try {
      // The provider answers the read 2 s late: past the 500 ms an inline send may take, well within the request's
      // 3 s. Without its own bound the read would run to the client's 30 s default.
      slow.harness.sandbox.injectFault({ path: '/transaction/info', fault: 'latency', latencyMs: 2_000 });
      const key = `rf-slow-read-${Date.now()}`;
      const transactionId = slow.transaction(15_000);
      const before = slow.sent();
      const readsBefore = slow.reads();
      const { reply, ms } = await slow.ask(transactionId, 100_000, 'dave', key);
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
      // Nothing recorded, nothing sent: no refund holds the key or a share of the transaction's total.
      expect((await slow.recorded()).filter((refund) => refund.idempotencyKey === key)).toEqual([]);
      expect(slow.sent()).toBe(before);

      // The fault was for one read: the retry with the same key reads, records and sends the refund, once.
      const retried = await slow.ask(transactionId, 100_000, 'dave', key);
      expect(retried.reply.status).toBe(201);
      expect(retried.reply.body.status).toBe('pending');
      const replayed = await slow.ask(transactionId, 100_000, 'dave', key);
      expect(replayed.reply.status).toBe(200);
      expect(replayed.reply.headers['idempotent-replayed']).toBe('true');
      expect(replayed.reply.body.id).toBe(retried.reply.body.id);
      expect((await slow.recorded()).filter((refund) => refund.idempotencyKey === key)).toHaveLength(1);
      expect(slow.sent()).toBe(before + 1);
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
      const key = `rf-no-read-${Date.now()}`;
      const readsBefore = closed.reads();
      const { reply, ms } = await closed.ask(closed.transaction(15_000), 100_000, 'dave', key);
      expect(reply.status).toBe(503);
      expect(reply.body.type).toBe('urn:payout-automation:problem:request-deadline');
      expect(ms).toBeLessThan(500);
      expect(closed.reads()).toBe(readsBefore);
      expect((await closed.recorded()).filter((refund) => refund.idempotencyKey === key)).toEqual([]);
    } finally {
      await closed.harness.close();
    }
  });

  it('answers POST /refunds past its send window with the refund requested and nothing in flight; the sweep sends it once', async () => {
    // The figures that answered 503 while the refund was still in flight at the provider.
    const late = await withDeadlines({
      localBudgetMs: 1_000,
      sendBeforeDeadlineMs: 1_000,
      sendDeadlineMs: 500,
    });
    try {
      late.harness.sandbox.injectFault({ path: '/refund', fault: 'latency', latencyMs: 1_500 });
      const before = late.sent();
      const { reply, ms } = await late.ask(late.transaction(15_000), 100_000);
      expect(reply.status).toBe(201);
      expect(reply.body.status).toBe('requested');
      expect(ms).toBeLessThan(1_000);
      expect(late.sent()).toBe(before);

      late.harness.sandbox.clearFaults();
      await late.sweepLater();
      expect(late.sent()).toBe(before + 1);
      const swept = await call(late.harness.api, { method: 'GET', path: `/refunds/${reply.body.id}` });
      expect(swept.body.status).toBe('pending');
    } finally {
      await late.harness.close();
    }
  });

  it('answers POST /refunds/{id}/approve past its send window with the refund approved and not sent; the sweep sends it once', async () => {
    const late = await withDeadlines({
      localBudgetMs: 1_000,
      sendBeforeDeadlineMs: 1_000,
      sendDeadlineMs: 500,
    });
    try {
      const held = await late.ask(late.transaction(50_000), 1_300_000, 'dave');
      expect(held.reply.body.status).toBe('pending_approval');
      late.harness.sandbox.injectFault({ path: '/refund', fault: 'latency', latencyMs: 1_500 });
      const before = late.sent();
      const started = performance.now();
      const approved = await call(late.harness.api, {
        method: 'POST',
        path: `/refunds/${held.reply.body.id}/approve`,
        principal: 'erin',
      });
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({ status: 'requested', approvedBy: { id: 'erin' } });
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(late.sent()).toBe(before);

      late.harness.sandbox.clearFaults();
      await late.sweepLater();
      expect(late.sent()).toBe(before + 1);
      const swept = await call(late.harness.api, { method: 'GET', path: `/refunds/${held.reply.body.id}` });
      expect(swept.body.status).toBe('pending');
    } finally {
      await late.harness.close();
    }
  });

  it('abandons an inline refund call at the send deadline: answered in time as unknown, sent once, never again', async () => {
    const slow = await withDeadlines({
      localBudgetMs: 3_000,
      sendBeforeDeadlineMs: 2_000,
      sendDeadlineMs: 500,
    });
    try {
      // The provider takes the refund at once and answers 1.5 s later: past the inline send's 500 ms.
      slow.harness.sandbox.injectFault({ path: '/refund', fault: 'latency', latencyMs: 1_500 });
      const before = slow.sent();
      const { reply, ms } = await slow.ask(slow.transaction(2_000), 5_000);
      expect(reply.status).toBe(201);
      expect(reply.body.status).toBe('unknown');
      expect(ms).toBeLessThan(1_500);
      await slow.sweepLater();
      expect(slow.sent()).toBe(before + 1);
    } finally {
      await slow.harness.close();
    }
  });
});

describe('POST /refunds/{id}/resolve', () => {
  /** A refund whose answer was lost after the provider took it: `unknown`, holding its share and cap. */
  async function unknownRefund(transactionId: string, amount: number): Promise<string> {
    h.sandbox.injectFault({ path: '/refund', fault: 'timeout-after-commit', times: 1 });
    const reply = await requestRefund(transactionId, amount);
    expect(reply.status).toBe(201);
    expect(reply.body.status).toBe('unknown');
    return reply.body.id;
  }
  const resolve = (id: string, principal: string, body: unknown) =>
    call(h.api, { method: 'POST', path: `/refunds/${id}/resolve`, body, principal });

  it('resolves an unknown refund as not sent when a second person confirms: cancelled, its share given back, the full amount asked again is accepted', async () => {
    const tx = paid(1_234.56);
    const id = await unknownRefund(tx, 123_456);
    // Stuck before: asking again is refused (the share is held) and cancelling is refused (it may have been sent).
    expect((await requestRefund(tx, 123_456)).status).toBe(422);
    expect(
      (await call(h.api, { method: 'POST', path: `/refunds/${id}/cancel`, principal: 'dave' })).status,
    ).toBe(409);

    const proposed = await resolve(id, 'dave', {
      outcome: 'not_sent',
      note: 'no refund in the provider dashboard',
    });
    expect(proposed.status).toBe(202);
    expect(proposed.body).toMatchObject({
      status: 'unknown',
      resolutionProposal: { outcome: 'not_sent', proposedBy: { id: 'dave' } },
    });
    // The proposer cannot confirm, under any spelling of their identity.
    const own = await resolve(id, 'DAVE', { outcome: 'not_sent', note: 'confirming my own' });
    expect(own.status).toBe(403);

    const confirmed = await resolve(id, 'erin', { outcome: 'not_sent', note: 'checked the statement too' });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ status: 'cancelled', failure: { code: 'RESOLVED_NOT_SENT' } });
    expect(confirmed.body.resolutionProposal).toBeUndefined();
    expect((await resolve(id, 'frank', { outcome: 'not_sent', note: 'again' })).status).toBe(409);

    const before = refundCalls();
    const again = await requestRefund(tx, 123_456);
    expect(again.status).toBe(201);
    expect(again.body.status).toBe('pending');
    expect(refundCalls()).toBe(before + 1);

    const { body } = await call(h.api, { method: 'GET', path: `/refunds/${id}` });
    const [proposal, resolution] = body.audit.slice(-2);
    expect(proposal).toMatchObject({ from: 'unknown', to: 'unknown', actor: { id: 'dave' } });
    expect(proposal.reason).toContain('no refund in the provider dashboard');
    expect(resolution).toMatchObject({ from: 'unknown', to: 'cancelled', actor: { id: 'erin' } });
    expect(resolution.reason).toContain('proposed by dave (no refund in the provider dashboard)');
    expect(resolution.reason).toContain('confirmed by erin (checked the statement too)');
  });

  it('resolves an unknown refund as accepted when a second person sends the same provider refund id: pending, the id recorded, its share kept', async () => {
    const tx = paid(294.9);
    const id = await unknownRefund(tx, 29_490);
    const accepted = { outcome: 'accepted', providerRefundId: 'RF-2026-0042', note: 'in the dashboard' };
    expect((await resolve(id, 'dave', accepted)).status).toBe(202);
    // Another id is another decision: it replaces the proposal, and its proposer cannot confirm it.
    const other = await resolve(id, 'erin', { ...accepted, providerRefundId: 'RF-2026-0043' });
    expect(other.status).toBe(202);
    expect(other.body.resolutionProposal).toMatchObject({
      providerRefundId: 'RF-2026-0043',
      proposedBy: { id: 'erin' },
    });
    expect((await resolve(id, 'erin', { ...accepted, providerRefundId: 'RF-2026-0043' })).status).toBe(403);

    const confirmed = await resolve(id, 'dave', { ...accepted, providerRefundId: 'RF-2026-0043' });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ status: 'pending', providerRefundId: 'RF-2026-0043' });
    expect(confirmed.body.failure).toBeUndefined();
    // Money left: its share stays counted.
    expect((await requestRefund(tx, 1)).status).toBe(422);
  });

  it('resolves only an unknown refund (409), and answers a bad body with a 400 naming the field', async () => {
    const sent = await requestRefund(paid(15_000), 1_000);
    expect(sent.body.status).toBe('pending');
    expect((await resolve(sent.body.id, 'dave', { outcome: 'not_sent', note: 'x' })).status).toBe(409);
    expect(
      (await resolve('01ARZ3NDEKTSV4RRFFQ69G5FAV', 'dave', { outcome: 'not_sent', note: 'x' })).status,
    ).toBe(404);

    const bad: [unknown, string][] = [
      [{ note: 'which outcome?' }, 'outcome'],
      [{ outcome: 'refunded', note: 'x' }, 'outcome'],
      [{ outcome: 'not_sent' }, 'note'],
      [{ outcome: 'not_sent', note: '   ' }, 'note'],
      [{ outcome: 'accepted', note: 'x' }, 'providerRefundId'],
      [{ outcome: 'accepted', providerRefundId: '', note: 'x' }, 'providerRefundId'],
    ];
    for (const [body, path] of bad) {
      const reply = await resolve(sent.body.id, 'dave', body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.errors.map((issue: { path: string }) => issue.path)).toContain(path);
    }
    const noBody = await call(h.api, {
      method: 'POST',
      path: `/refunds/${sent.body.id}/resolve`,
      principal: 'dave',
    });
    expect(noBody.status).toBe(400);
  });
});
