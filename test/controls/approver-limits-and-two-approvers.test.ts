import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSweep } from '../../lib/jobs/scheduled.js';
import { servedBy } from '../../lib/local/function-attribution.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { type ApiHarness, bankTransfer, call, type Reply, startApiHarness } from '../api/support/harness.js';
import { ledgerEntriesOf } from '../support/engine-harness.js';

/**
 * Per-approver limits and a second approver above a higher threshold (docs/controls.md, "Approver limits and two
 * approvers"), through the API over DynamoDB Local and the sandbox, for every kind that can be approved.
 */
const THRESHOLD = 1_000_000;
const SECOND = 2_000_000;
/** 25,000 NGN: at or above the second-approval threshold. */
const LARGE = 2_500_000;
/** 15,000 NGN: needs one approval. */
const MEDIUM = 1_500_000;
const ERIN_LIMIT = 1_200_000;
const DEFAULT_LIMIT = 10_000_000;

let h: ApiHarness;
let keys = 0;
const key = (label: string) => `${label}-${++keys}`;

beforeAll(async () => {
  h = await startApiHarness({
    env: {
      MAX_PAYOUT_KOBO: '20000000',
      APPROVAL_THRESHOLD_KOBO: String(THRESHOLD),
      SECOND_APPROVAL_THRESHOLD_KOBO: String(SECOND),
      APPROVER_LIMITS: JSON.stringify({ defaultKobo: DEFAULT_LIMIT, byApprover: { ERIN: ERIN_LIMIT } }),
    },
  });
});
afterAll(async () => h?.close());

const sweep = () =>
  servedBy('sweep-due-payouts', () => runSweep(payoutSweeper(payoutEngineOf(h.runtime)), 60_000));
const providerRequests = () => Object.values(h.sandbox.stats().requests).reduce((sum, n) => sum + n, 0);

function expectForbidden(reply: Reply, ...phrases: string[]) {
  expect(reply.status).toBe(403);
  expect(reply.body.type).toBe('urn:payout-automation:problem:approval-forbidden');
  for (const phrase of phrases) expect(reply.body.detail).toContain(phrase);
}

async function payoutAwaitingApproval(amount: number, narration: string): Promise<string> {
  const created = await call(h.api, {
    method: 'POST',
    path: '/payouts',
    headers: { 'Idempotency-Key': key('payout') },
    body: bankTransfer({ amount, narration }),
    principal: 'alice',
  });
  expect(created.status).toBe(201);
  expect(created.body.status).toBe('pending_approval');
  return created.body.id;
}

const approve = (path: string, principal: string) =>
  call(h.api, { method: 'POST', path: `${path}/approve`, principal });
const read = async (path: string) => (await call(h.api, { method: 'GET', path })).body;
const queued = async (kind: string, principal: string) =>
  (await call(h.api, { method: 'GET', path: '/approvals', query: `kind=${kind}&limit=100`, principal })).body
    .items as { id: string; firstApproval?: { by: { id: string } } }[];

describe('approver limits', () => {
  it("refuses an approval above the approver's own limit with 403 naming it, and changes nothing", async () => {
    const id = await payoutAwaitingApproval(MEDIUM, 'above erin');
    const requests = providerRequests();

    const refused = await approve(`/payouts/${id}`, 'erin');
    expectForbidden(refused, `approval limit of ${ERIN_LIMIT} kobo`, 'erin', 'nothing changed');

    const payout = await read(`/payouts/${id}`);
    expect(payout.status).toBe('pending_approval');
    expect(payout.approvedBy).toBeUndefined();
    expect(payout.firstApproval).toBeUndefined();
    expect(payout.audit).toHaveLength(1);
    await sweep();
    expect(providerRequests()).toBe(requests);

    // Within the limit of another approver it is released with one approval, as below the second threshold.
    const approved = await approve(`/payouts/${id}`, 'bob');
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'pending', approvedBy: { id: 'bob' } });
  });

  it('applies the default limit to every approver not named, whoever asks', async () => {
    const id = await payoutAwaitingApproval(12_000_000, 'above the default limit');
    for (const approver of ['bob', 'carol']) {
      expectForbidden(await approve(`/payouts/${id}`, approver), `approval limit of ${DEFAULT_LIMIT} kobo`);
    }
    const payout = await read(`/payouts/${id}`);
    expect(payout.status).toBe('pending_approval');
    expect(payout.firstApproval).toBeUndefined();
  });
});

describe('two approvers at or above the second-approval threshold', () => {
  it('records the first approval and keeps the payout waiting; the second, by another person, releases it and it is paid once', async () => {
    const id = await payoutAwaitingApproval(LARGE, 'two approvers');

    const first = await approve(`/payouts/${id}`, 'bob');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'pending_approval', firstApproval: { by: { id: 'bob' } } });
    expect(first.body.approvedBy).toBeUndefined();
    await sweep();
    expect(ledgerEntriesOf(h.sandbox, id)).toHaveLength(0);

    // In the queue as needing a second approval, for everyone but the requester and the first approver.
    expect((await queued('payout', 'carol')).find((item) => item.id === id)).toMatchObject({
      firstApproval: { by: { id: 'bob' } },
    });
    expect((await queued('payout', 'bob')).map((item) => item.id)).not.toContain(id);

    const second = await approve(`/payouts/${id}`, 'carol');
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      status: 'pending',
      approvedBy: { id: 'carol' },
      firstApproval: { by: { id: 'bob' } },
    });
    await sweep();
    const payout = await read(`/payouts/${id}`);
    expect(payout.status).toBe('succeeded');
    expect(ledgerEntriesOf(h.sandbox, id)).toHaveLength(1);
    expect(payout.audit.slice(1, 3)).toMatchObject([
      { from: 'pending_approval', to: 'pending_approval', actor: { id: 'bob' } },
      { from: 'pending_approval', to: 'pending', actor: { id: 'carol' } },
    ]);
    expect(payout.audit[1].reason).toContain('first approval by bob');
    expect(payout.audit[2].reason).toContain('approved by carol, the second approver after bob');
  });

  it('refuses the same person approving twice, under any spelling, and the requester as the second approver (403, nothing changes)', async () => {
    const id = await payoutAwaitingApproval(LARGE, 'same person twice');
    expect((await approve(`/payouts/${id}`, 'bob')).status).toBe(200);

    expectForbidden(await approve(`/payouts/${id}`, 'BOB'), 'approved first by bob');
    expectForbidden(await approve(`/payouts/${id}`, 'alice'), 'requested by alice');

    const payout = await read(`/payouts/${id}`);
    expect(payout.status).toBe('pending_approval');
    expect(payout.audit).toHaveLength(2);
    expect(payout.approvedBy).toBeUndefined();
  });

  it('ends it with a rejection after the first approval, as before any', async () => {
    const id = await payoutAwaitingApproval(LARGE, 'rejected after one approval');
    expect((await approve(`/payouts/${id}`, 'bob')).status).toBe(200);
    const rejected = await call(h.api, {
      method: 'POST',
      path: `/payouts/${id}/reject`,
      principal: 'carol',
      body: { reason: 'not on the vendor list' },
    });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'cancelled', rejection: { by: { id: 'carol' } } });
    expect((await approve(`/payouts/${id}`, 'dave')).status).toBe(409);
    // Final: a cancel of the cancelled payout is refused too, as before.
    const cancelled = await call(h.api, {
      method: 'POST',
      path: `/payouts/${id}/cancel`,
      principal: 'alice',
    });
    expect(cancelled.status).toBe(409);
  });

  it('releases a payout below the second-approval threshold with one approval', async () => {
    const id = await payoutAwaitingApproval(MEDIUM, 'one approver below');
    const approved = await approve(`/payouts/${id}`, 'bob');
    expect(approved.body).toMatchObject({ status: 'pending', approvedBy: { id: 'bob' } });
    expect(approved.body.firstApproval).toBeUndefined();
  });

  it('takes two approvers for a refund, the second sending it once', async () => {
    const transaction = h.sandbox.fixtures().paymentLinkTransactions.find((t) => t.amountPaid === 50_000);
    const created = await call(h.api, {
      method: 'POST',
      path: '/refunds',
      headers: { 'Idempotency-Key': key('refund') },
      body: {
        transactionId: transaction?.id,
        amount: LARGE,
        customerNote: 'sorry',
        merchantNote: 'returned',
      },
      principal: 'dave',
    });
    expect(created.body.status).toBe('pending_approval');
    const path = `/refunds/${created.body.id}`;
    const refundCalls = () => h.sandbox.stats().requests['/refund'] ?? 0;
    const before = refundCalls();

    const first = await approve(path, 'bob');
    expect(first.body).toMatchObject({ status: 'pending_approval', firstApproval: { by: { id: 'bob' } } });
    expectForbidden(await approve(path, 'bob'), 'approved first by bob');
    expectForbidden(await approve(path, 'dave'), 'requested by dave');
    expect(refundCalls()).toBe(before);
    expect((await queued('refund', 'carol')).find((item) => item.id === created.body.id)).toMatchObject({
      firstApproval: { by: { id: 'bob' } },
    });

    const second = await approve(path, 'carol');
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ approvedBy: { id: 'carol' }, firstApproval: { by: { id: 'bob' } } });
    expect(second.body.status).not.toBe('pending_approval');
    expect(refundCalls()).toBe(before + 1);
    const audit = (await read(path)).audit as { reason: string }[];
    expect(audit.map((event) => event.reason)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('first approval by bob'),
        expect.stringContaining('the second approver after bob'),
      ]),
    );
  });

  it('takes two approvers for a recurring payout rule at or above it (an occurrence), then activates it', async () => {
    const created = await call(h.api, {
      method: 'POST',
      path: '/recurring-payouts',
      headers: { 'Idempotency-Key': key('rule') },
      body: {
        ...bankTransfer({ amount: LARGE, narration: 'monthly retainer' }),
        interval: 'monthly',
        startDate: '2030-01-31',
        timeOfDay: '09:00',
      },
      principal: 'alice',
    });
    expect(created.body.status).toBe('pending_approval');
    const path = `/recurring-payouts/${created.body.id}`;

    const first = await approve(path, 'bob');
    expect(first.body).toMatchObject({ status: 'pending_approval', firstApproval: { by: { id: 'bob' } } });
    expectForbidden(await approve(path, 'bob'), 'approved first by bob');
    expect(
      (await queued('recurring-payout', 'carol')).find((item) => item.id === created.body.id),
    ).toMatchObject({ firstApproval: { by: { id: 'bob' } } });

    const second = await approve(path, 'carol');
    expect(second.body).toMatchObject({ status: 'active', approvedBy: { id: 'carol' } });
    const actions = ((await read(path)).audit as { action: string }[]).map((event) => event.action);
    expect(actions).toEqual(['created', 'approved', 'approved']);
  });

  it('takes two approvers for a payout run whose total is at or above it, and the approver limit weighs the total', async () => {
    const csv = [
      'reference,amount,bankCode,accountNumber,accountName,narration',
      'row-1,1100000,058,1000000001,Staff 1,June salary',
      'row-2,1100000,058,1000000002,Staff 2,June salary',
    ].join('\n');
    const created = await call(h.api, {
      method: 'POST',
      path: '/payout-runs',
      headers: { 'content-type': 'text/csv', 'idempotency-key': key('run') },
      body: `${csv}\n`,
      principal: 'alice',
    });
    expect(created.status).toBe(202);
    expect(created.body.status).toBe('pending_approval');
    const path = `/payout-runs/${created.body.runId}`;

    // Each row is within erin's limit; the run's total is not.
    expectForbidden(await approve(path, 'erin'), `approval limit of ${ERIN_LIMIT} kobo`);
    const first = await approve(path, 'bob');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'pending_approval', firstApproval: { by: { id: 'bob' } } });
    expectForbidden(await approve(path, 'bob'), 'approved first by bob');
    expectForbidden(await approve(path, 'alice'), 'requested by alice');

    const second = await approve(path, 'carol');
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      status: 'materialising',
      approvedBy: { id: 'carol' },
      firstApproval: { by: { id: 'bob' } },
    });
  });

  it('takes two approvers for a held bulk correction of an amount at or above it, the second sending it once', async () => {
    const patches = () => h.sandbox.stats().requests['/payout/bulk/item'] ?? 0;
    const item = h.sandbox.fixtures().bulkPayoutItems.find((one) => one.isValid);
    const held = await call(h.api, {
      method: 'PATCH',
      path: `/bulk-payout-items/${item?.id}`,
      principal: 'alice',
      body: { amount: LARGE },
    });
    expect(held.status).toBe(202);
    const correctionId: string = held.body.correction.correctionId;
    const path = `/bulk-payout-items/${item?.id}/corrections/${correctionId}`;
    const before = patches();

    const first = await approve(path, 'bob');
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({
      outcome: 'pending_approval',
      correction: { status: 'pending_approval', firstApproval: { by: { id: 'bob' } } },
    });
    expectForbidden(await approve(path, 'bob'), 'approved first by bob');
    expect(patches()).toBe(before);
    expect((await queued('bulk-correction', 'carol')).find((one) => one.id === correctionId)).toMatchObject({
      firstApproval: { by: { id: 'bob' } },
    });

    const second = await approve(path, 'carol');
    expect(second.status).toBe(200);
    expect(patches()).toBe(before + 1);
  });
});
