import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, bankTransfer, call, startApiHarness } from './support/harness.js';

let h: ApiHarness;
beforeAll(async () => {
  h = await startApiHarness({ env: { RECONCILE_INTERVAL_MS: '1' } });
});
afterAll(async () => h.close());

/** Sends a second provider operation carrying the payout's marker, so the reconciler cannot tell which is ours. */
async function duplicateAtProvider(payoutId: string): Promise<void> {
  const response = await fetch(`${h.sandbox.url}/settlement/instant/payout`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.sandbox.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      amount: 2500,
      bankCode: '058',
      accountNumber: '0123456789',
      accountName: 'Ada Obi',
      narration: `manual retry po_${payoutId}`,
      metadata: {},
    }),
  });
  expect(response.status).toBe(200);
}

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
    await h.runtime.engine.reconcile();
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

  it('answers 404 for an unknown payout', async () => {
    const { status } = await call(h.api, {
      method: 'POST',
      path: '/payouts/01KJQ3Z8V6W9X2Y4A7B1C3D5E7/resolve',
      body: { outcome: 'failed', note: 'x' },
    });
    expect(status).toBe(404);
  });
});
