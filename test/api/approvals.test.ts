import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { bankTransfer } from '../support/engine-harness.js';
import { type ApiHarness, call, startApiHarness } from './support/harness.js';

describe('the approvals queue (GET /approvals)', () => {
  let h: ApiHarness;

  beforeAll(async () => {
    h = await startApiHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it("shows what waits for a second person, but never the viewer's own requests, each with the call that approves it", async () => {
    const threshold = payoutEngineOf(h.runtime).ctx.config.approvalThresholdKobo;
    const byAlice = await call(h.api, {
      method: 'POST',
      path: '/payouts',
      principal: 'alice',
      headers: { 'Idempotency-Key': 'approvals-1' },
      body: bankTransfer(threshold, { narration: 'supplier 17' }),
    });
    const byBob = await call(h.api, {
      method: 'POST',
      path: '/payouts',
      principal: 'bob',
      headers: { 'Idempotency-Key': 'approvals-2' },
      body: bankTransfer(threshold + 100, { narration: 'supplier 18' }),
    });
    const validItem = h.sandbox.fixtures().bulkPayoutItems.find((item) => item.isValid)?.id;
    const held = await call(h.api, {
      method: 'PATCH',
      path: `/bulk-payout-items/${validItem}`,
      principal: 'alice',
      body: { accountNumber: '9999999999' },
    });
    expect(held.status).toBe(202);

    const forAlice = await call(h.api, { method: 'GET', path: '/approvals', principal: 'ALICE' });
    expect(forAlice.status).toBe(200);
    expect(forAlice.body.items.map((item: { id: string }) => item.id)).toEqual([byBob.body.id]);

    const forCarol = await call(h.api, { method: 'GET', path: '/approvals', principal: 'carol' });
    const kinds = forCarol.body.items.map((item: { kind: string; id: string }) => `${item.kind}:${item.id}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        `payout:${byAlice.body.id}`,
        `payout:${byBob.body.id}`,
        `bulk-correction:${held.body.correction.correctionId}`,
      ]),
    );
    const correction = forCarol.body.items.find((item: { kind: string }) => item.kind === 'bulk-correction');
    expect(correction.summary).toContain('9999999999');
    const approved = await call(h.api, {
      method: correction.approve.method,
      path: correction.approve.path,
      principal: 'carol',
    });
    expect(approved.status).toBe(200);
    const after = await call(h.api, {
      method: 'GET',
      path: '/approvals',
      principal: 'carol',
      query: 'kind=bulk-correction',
    });
    expect(after.body.items).toEqual([]);
  });

  it('lists a payout run waiting for a second person with its total, to all but its requester, and approves it by the call it names', async () => {
    const threshold = payoutEngineOf(h.runtime).ctx.config.approvalThresholdKobo;
    // Two rows, each below the threshold, together at it: the run as a whole waits for a second person.
    const half = Math.ceil(threshold / 2);
    const csv = [
      'reference,amount,bankCode,accountNumber,accountName,narration',
      `queue-1,${half},058,0123456781,Ada Obi,June salary`,
      `queue-2,${half},058,0123456782,Ben Eze,June salary`,
    ].join('\n');
    const created = await call(h.api, {
      method: 'POST',
      path: '/payout-runs',
      principal: 'alice',
      headers: { 'content-type': 'text/csv', 'idempotency-key': 'approvals-run-1' },
      body: `${csv}\n`,
    });
    expect(created.status).toBe(202);
    expect(created.body.status).toBe('pending_approval');
    const runId: string = created.body.runId;

    const runsFor = async (principal: string) =>
      (await call(h.api, { method: 'GET', path: '/approvals', principal, query: 'kind=payout-run' })).body
        .items;
    expect(await runsFor('alice')).toEqual([]);
    const [waiting] = await runsFor('carol');
    expect(waiting).toMatchObject({
      kind: 'payout-run',
      id: runId,
      amount: 2 * half,
      requestedBy: { id: 'alice' },
      approve: { method: 'POST', path: `/payout-runs/${runId}/approve` },
      reject: { method: 'POST', path: `/payout-runs/${runId}/reject` },
    });
    expect(waiting.summary).toContain('2 bank transfers');
    const approved = await call(h.api, {
      method: waiting.approve.method,
      path: waiting.approve.path,
      principal: 'carol',
      body: {},
    });
    expect(approved.status).toBe(200);
    expect(await runsFor('carol')).toEqual([]);
  });

  it('pages one kind at a time and refuses a cursor without its kind', async () => {
    const first = await call(h.api, {
      method: 'GET',
      path: '/approvals',
      principal: 'carol',
      query: 'kind=payout&limit=1',
    });
    expect(first.body.items).toHaveLength(1);
    const second = await call(h.api, {
      method: 'GET',
      path: '/approvals',
      principal: 'carol',
      query: `kind=payout&limit=1&cursor=${first.body.nextCursors.payout}`,
    });
    expect(second.body.items).toHaveLength(1);
    expect(second.body.items[0].id).not.toBe(first.body.items[0].id);
    const noKind = await call(h.api, {
      method: 'GET',
      path: '/approvals',
      query: `cursor=${first.body.nextCursors.payout}`,
    });
    expect(noKind.status).toBe(400);
    expect(noKind.body.errors[0].path).toBe('kind');
  });
});
