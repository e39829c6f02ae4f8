import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, call, startApiHarness } from './support/harness.js';

/** Issue 13, finding 4, through the ops API: the refund attacks answer with problems that name the field. */
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
