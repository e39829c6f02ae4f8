import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servedBy } from '../../lib/local/function-attribution.js';
import { reconcilePayouts } from '../../lib/payouts/engine/reconcile-payouts.js';
import { payoutEngineOf } from '../../lib/runtime/payout-engine.js';
import { type ApiHarness, bankTransfer, call, startApiHarness } from './support/harness.js';

let h: ApiHarness;
beforeAll(async () => {
  h = await startApiHarness({ env: { RECONCILE_INTERVAL_MS: '1' } });
});
afterAll(async () => h.close());

/** A bank payout made straight at the provider (a person on the provider's dashboard), with a chosen narration. */
async function atProvider(narration: string, amount = 2500, accountNumber = '0123456789'): Promise<string> {
  const response = await fetch(`${h.sandbox.url}/settlement/instant/payout`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.sandbox.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      amount,
      bankCode: '058',
      accountNumber,
      accountName: 'Ada Obi',
      narration,
      metadata: {},
    }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { transactionId: string } }).data.transactionId;
}

/** Sends a second provider operation carrying the payout's marker, so the reconciler cannot tell which is ours. */
async function duplicateAtProvider(payoutId: string): Promise<void> {
  await atProvider(`manual retry po_${payoutId}`);
}

let reviewCounter = 0;
/** A payout in needs_review: its answer was lost, and a second matching record appeared at the provider. */
async function payoutInReview(): Promise<string> {
  h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'timeout-after-commit', times: 1 });
  const created = await call(h.api, {
    method: 'POST',
    path: '/payouts',
    headers: { 'idempotency-key': `in-review-${++reviewCounter}` },
    body: bankTransfer(),
  });
  const id: string = created.body.id;
  await duplicateAtProvider(id);
  await servedBy('reconcile-payouts', () => reconcilePayouts(payoutEngineOf(h.runtime).ctx));
  expect((await call(h.api, { method: 'GET', path: `/payouts/${id}` })).body.status).toBe('needs_review');
  return id;
}

const resolve = (id: string, principal: string, body: Record<string, unknown>) =>
  call(h.api, { method: 'POST', path: `/payouts/${id}/resolve`, body, principal });

describe('POST /payouts/{id}/resolve', () => {
  it('lets a person decide a payout the reconciler handed over, with the decision audited', async () => {
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'timeout-after-commit', times: 1 });
    const created = await call(h.api, {
      method: 'POST',
      path: '/payouts',
      headers: { 'idempotency-key': 'review-1' },
      body: bankTransfer(),
    });
    expect(created.body.status).toBe('unknown');
    const id: string = created.body.id;
    await duplicateAtProvider(id);
    await servedBy('reconcile-payouts', () => reconcilePayouts(payoutEngineOf(h.runtime).ctx));
    expect((await call(h.api, { method: 'GET', path: `/payouts/${id}` })).body.status).toBe('needs_review');

    const incomplete = await call(h.api, {
      method: 'POST',
      path: `/payouts/${id}/resolve`,
      body: { outcome: 'succeeded', note: 'first of the two records is ours' },
      principal: 'carol',
    });
    expect(incomplete.status).toBe(400);
    expect(incomplete.body.errors[0].path).toBe('transactionId');

    const transactionId = h.sandbox
      .ledger()
      .operations.find((op) => op.narration.endsWith(`po_${id}`) && op.amount === 2500)?.transactionId;
    const resolved = await call(h.api, {
      method: 'POST',
      path: `/payouts/${id}/resolve`,
      body: {
        outcome: 'succeeded',
        transactionId,
        note: 'ours is the 2,500.00 debit; the other was a manual retry, refund requested',
      },
      principal: 'carol',
    });
    expect(resolved.status).toBe(200);
    expect(resolved.body.status).toBe('succeeded');
    const audit = (await call(h.api, { method: 'GET', path: `/payouts/${id}` })).body.audit;
    expect(audit.at(-1)).toMatchObject({ from: 'needs_review', to: 'succeeded', actor: { id: 'carol' } });
    expect(audit.at(-1).reason).toMatch(/manual retry/);

    const again = await call(h.api, {
      method: 'POST',
      path: `/payouts/${id}/resolve`,
      body: { outcome: 'failed', note: 'changed my mind' },
      principal: 'carol',
    });
    expect(again.status).toBe(409);
  });

  it('refuses (409) to resolve as paid with a transaction id the provider does not have, changing nothing', async () => {
    const id = await payoutInReview();
    const fake = await resolve(id, 'carol', {
      outcome: 'succeeded',
      transactionId: 'not-a-real-tx',
      note: 'trust me',
    });
    expect(fake.status).toBe(409);
    expect(fake.body.detail).toMatch(/not-a-real-tx/);
    expect((await call(h.api, { method: 'GET', path: `/payouts/${id}` })).body.status).toBe('needs_review');
  });

  it.each([
    ['another amount', (id: string) => atProvider(`refund po_${id}`, 1), /amount 100 kobo, not 250000/],
    [
      'another account',
      (id: string) => atProvider(`refund po_${id}`, 2500, '2222222222'),
      /destination 058\/2222222222, not 058\/0123456789/,
    ],
    [
      "another payout's marker",
      (id: string) => atProvider(`thanks po_${id} po_01KJQ3Z8V6W9X2Y4A7B1C3D5E7`),
      /does not end with a marker of this payout/,
    ],
  ])('refuses (409) a real provider record with %s, naming the mismatch', async (_what, make, mismatch) => {
    const id = await payoutInReview();
    const transactionId = await make(id);
    const refused = await resolve(id, 'carol', { outcome: 'succeeded', transactionId, note: 'this one' });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain(transactionId);
    expect(refused.body.detail).toMatch(mismatch);
    expect((await call(h.api, { method: 'GET', path: `/payouts/${id}` })).body.status).toBe('needs_review');
  });

  it('resolves as paid with a verified record, keeping the charges the provider recorded', async () => {
    const id = await payoutInReview();
    const ours = h.sandbox.ledger().operations.filter((op) => op.narration.endsWith(`po_${id}`));
    expect(ours).toHaveLength(2);
    const resolved = await resolve(id, 'carol', {
      outcome: 'succeeded',
      transactionId: ours[0]?.transactionId,
      note: 'the first debit is ours; the manual retry is being recovered',
    });
    expect(resolved.status).toBe(200);
    // 10.75 is the provider's fee with VAT on a 2,500.00 bank payout: the record's charges, not 0.
    expect(ours[0]?.charges).toBe(10.75);
    expect(resolved.body.receipt).toMatchObject({
      transactionId: ours[0]?.transactionId,
      status: 'SUCCESS',
      charges: 1075,
    });
  });

  it('refuses a forced resolution confirmed by the person who proposed it, and applies it when a second person confirms', async () => {
    const id = await payoutInReview();
    const foreign = await atProvider(`refund po_${id}`, 1);
    const force = { outcome: 'succeeded', transactionId: foreign, force: true };

    const proposed = await resolve(id, 'carol', {
      ...force,
      note: 'bank statement shows it; amount misreported',
    });
    expect(proposed.status).toBe(202);
    expect(proposed.body.status).toBe('needs_review');
    expect(proposed.body.resolutionProposal).toMatchObject({
      transactionId: foreign,
      proposedBy: { id: 'carol' },
    });
    expect(proposed.body.resolutionProposal.mismatch).toMatch(/amount 100 kobo/);

    // The same person, however spelt, cannot confirm their own proposal.
    for (const self of ['carol', 'CAROL']) {
      const again = await resolve(id, self, { ...force, note: 'confirming' });
      expect(again.status).toBe(403);
    }
    expect((await call(h.api, { method: 'GET', path: `/payouts/${id}` })).body.status).toBe('needs_review');

    const confirmed = await resolve(id, 'dave', { ...force, note: 'checked the statement with carol' });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.status).toBe('succeeded');
    // The provider record's own charges (10.75 on a 1.00 bank payout), not 0.
    expect(confirmed.body.receipt).toMatchObject({ transactionId: foreign, charges: 1075 });
    const audit = (await call(h.api, { method: 'GET', path: `/payouts/${id}` })).body.audit;
    expect(audit.at(-1)).toMatchObject({ from: 'needs_review', to: 'succeeded', actor: { id: 'dave' } });
    expect(audit.at(-1).reason).toMatch(/proposed by carol .* confirmed by dave/);
  });

  it('answers 404 for an unknown payout', async () => {
    const { status } = await call(h.api, {
      method: 'POST',
      path: '/payouts/01KJQ3Z8V6W9X2Y4A7B1C3D5E7/resolve',
      body: { outcome: 'failed', note: 'x' },
    });
    expect(status).toBe(404);
  });
});
