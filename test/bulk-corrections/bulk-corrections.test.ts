import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pausePayouts, resumePayouts } from '../../lib/payouts/engine/controls.js';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { type ApiHarness, call, startApiHarness } from '../api/support/harness.js';

const PATCH_PATH = '/payout/bulk/item';

describe('bulk payout item corrections (ops API)', () => {
  let h: ApiHarness;
  let invalidIds: string[];
  let validIds: string[];

  beforeAll(async () => {
    h = await startApiHarness();
    const items = h.sandbox.fixtures().bulkPayoutItems;
    invalidIds = items.filter((item) => !item.isValid).map((item) => item.id);
    validIds = items.filter((item) => item.isValid).map((item) => item.id);
  });
  afterAll(async () => {
    await h.close();
  });

  const patchCount = () => h.sandbox.stats().requests[PATCH_PATH] ?? 0;

  it('refuses bad fields with field-level errors and makes no provider call', async () => {
    const before = patchCount();
    const reply = await call(h.api, {
      method: 'PATCH',
      path: `/bulk-payout-items/${invalidIds[0]}`,
      principal: 'alice',
      body: { accountNumber: '12345', bankCode: 'GTB', amount: 150_050, phoneNumber: '12345', narration: '' },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.errors.map((issue: { path: string }) => issue.path).sort()).toEqual(
      ['accountNumber', 'amount', 'bankCode', 'narration', 'phoneNumber'].sort(),
    );
    expect(reply.body.errors.find((issue: { path: string }) => issue.path === 'amount').message).toContain(
      'whole',
    );
    expect(patchCount()).toBe(before);
  });

  it('refuses an empty correction and unknown fields without a provider call', async () => {
    const before = patchCount();
    const empty = await call(h.api, {
      method: 'PATCH',
      path: `/bulk-payout-items/${invalidIds[0]}`,
      principal: 'alice',
      body: {},
    });
    const unknown = await call(h.api, {
      method: 'PATCH',
      path: `/bulk-payout-items/${invalidIds[0]}`,
      principal: 'alice',
      body: { iban: 'x' },
    });
    expect(empty.status).toBe(400);
    expect(unknown.status).toBe(400);
    expect(patchCount()).toBe(before);
  });

  /** Requests a correction that the gate holds, then has `approver` approve it; the approval's reply. */
  async function heldThenApproved(
    id: string,
    body: Record<string, unknown>,
    requester: string,
    approver: string,
  ) {
    const held = await call(h.api, {
      method: 'PATCH',
      path: `/bulk-payout-items/${id}`,
      principal: requester,
      body,
    });
    expect(held.status).toBe(202);
    expect(held.body).toMatchObject({
      outcome: 'pending_approval',
      correction: { status: 'pending_approval' },
    });
    return call(h.api, {
      method: 'POST',
      path: `/bulk-payout-items/${id}/corrections/${held.body.correction.correctionId}/approve`,
      principal: approver,
    });
  }

  it("shows an item the provider still reports invalid with the provider's reason, never as fixed", async () => {
    const before = patchCount();
    const reply = await heldThenApproved(invalidIds[1] ?? '', { bankCode: '999' }, 'alice', 'bob');
    expect(patchCount()).toBe(before + 1);
    expect(reply.status).toBe(200);
    expect(reply.body.outcome).toBe('still_invalid');
    expect(reply.body.isValid).toBe(false);
    expect(reply.body.reason).toContain('999');
    const shown = await call(h.api, { method: 'GET', path: `/bulk-payout-items/${invalidIds[1]}` });
    expect(shown.body).toMatchObject({ isValid: false });
    expect(shown.body.reason).toContain('999');
    expect(shown.body.corrections).toMatchObject([
      {
        status: 'approved',
        requestedBy: { id: 'alice' },
        approvedBy: { id: 'bob' },
        outcome: 'still_invalid',
      },
    ]);
    // The provider now holds it as invalid, but its amount is not known here: the new destination redirects an
    // amount nobody checked, so it still waits for a second person.
    const fixed = await heldThenApproved(invalidIds[1] ?? '', { bankCode: '058' }, 'alice', 'bob');
    expect(fixed.status).toBe(200);
    expect(fixed.body.outcome).toBe('corrected');
  });

  it('fixes an item, stores the validation record, and audits who changed what from which value to which', async () => {
    const id = invalidIds[0] ?? '';
    const first = await heldThenApproved(
      id,
      { accountNumber: '0123456789', bankCode: '058', amount: 150_000 },
      'alice',
      'carol',
    );
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ outcome: 'corrected', isValid: true, reason: null });

    // Valid now: a new destination waits for a second person again.
    const second = await heldThenApproved(
      id,
      { accountNumber: '0987654321', phoneNumber: '08031234567' },
      'bob',
      'alice',
    );
    expect(second.body.outcome).toBe('corrected');

    const shown = await call(h.api, { method: 'GET', path: `/bulk-payout-items/${id}` });
    expect(shown.status).toBe(200);
    expect(shown.body.record).toMatchObject({ accountNumber: '0987654321', bankCode: '058', isValid: true });
    const [audit1, audit2] = shown.body.audit;
    expect(audit1).toMatchObject({
      actor: { id: 'alice' },
      approvedBy: { id: 'carol' },
      outcome: 'corrected',
      provider: { isValid: true },
    });
    // The first correction here: earlier values were not known to us.
    expect(audit1.changes).toContainEqual({
      field: 'accountNumber',
      from: null,
      fromKnown: false,
      to: '0123456789',
    });
    expect(audit2).toMatchObject({ actor: { id: 'bob' }, approvedBy: { id: 'alice' } });
    expect(audit2.changes).toEqual([
      { field: 'accountNumber', from: '0123456789', fromKnown: true, to: '0987654321' },
      { field: 'phoneNumber', from: null, fromKnown: false, to: '08031234567' },
    ]);
  });

  describe('bulk-item corrections move money unchecked', () => {
    it('refuses moving a valid item to account 9999999999 for twice the per-payout maximum: 400 naming amount, nothing sent', async () => {
      const before = patchCount();
      const twiceTheMaximum = 2 * payoutEngineOf(h.runtime).ctx.config.maxInstructionKobo;
      const reply = await call(h.api, {
        method: 'PATCH',
        path: `/bulk-payout-items/${validIds[3]}`,
        principal: 'alice',
        body: { accountNumber: '9999999999', amount: twiceTheMaximum },
      });
      expect(reply.status).toBe(400);
      expect(reply.body.errors.map((issue: { path: string }) => issue.path)).toEqual(['amount']);
      expect(patchCount()).toBe(before);
    });

    it('holds a new destination for a valid item until a second person approves; the requester cannot; two approvers send it once', async () => {
      const id = validIds[3] ?? '';
      const before = patchCount();
      const held = await call(h.api, {
        method: 'PATCH',
        path: `/bulk-payout-items/${id}`,
        principal: 'mallory',
        body: { accountNumber: '9999999999' },
      });
      expect(held.status).toBe(202);
      expect(held.body.correction.reason).toContain('destination');
      expect(patchCount()).toBe(before);
      const approvePath = `/bulk-payout-items/${id}/corrections/${held.body.correction.correctionId}/approve`;
      const bySelf = await call(h.api, { method: 'POST', path: approvePath, principal: 'MALLORY' });
      expect(bySelf.status).toBe(403);
      expect(patchCount()).toBe(before);
      const [a, b] = await Promise.all([
        call(h.api, { method: 'POST', path: approvePath, principal: 'alice' }),
        call(h.api, { method: 'POST', path: approvePath, principal: 'bob' }),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      expect(patchCount()).toBe(before + 1);
    });

    it('holds an amount at or above the approval threshold, and sends nothing while payouts are paused', async () => {
      const id = validIds[2] ?? '';
      const threshold = payoutEngineOf(h.runtime).ctx.config.approvalThresholdKobo;
      const held = await call(h.api, {
        method: 'PATCH',
        path: `/bulk-payout-items/${id}`,
        principal: 'alice',
        body: { amount: threshold },
      });
      expect(held.status).toBe(202);
      expect(held.body.correction.reason).toContain('threshold');
      const before = patchCount();
      await pausePayouts(payoutEngineOf(h.runtime).ctx, { id: 'ops', kind: 'user' }, 'incident');
      try {
        const narration = await call(h.api, {
          method: 'PATCH',
          path: `/bulk-payout-items/${id}`,
          principal: 'alice',
          body: { narration: 'June salaries' },
        });
        expect(narration.status).toBe(409);
        expect(narration.body.type).toContain('payouts-paused');
        const approval = await call(h.api, {
          method: 'POST',
          path: `/bulk-payout-items/${id}/corrections/${held.body.correction.correctionId}/approve`,
          principal: 'bob',
        });
        expect(approval.status).toBe(409);
        expect(patchCount()).toBe(before);
      } finally {
        await resumePayouts(payoutEngineOf(h.runtime).ctx, { id: 'ops', kind: 'user' });
      }
    });
  });

  it('reports a provider refusal with its message and claims nothing', async () => {
    const reply = await call(h.api, {
      method: 'PATCH',
      path: '/bulk-payout-items/no-such-item',
      principal: 'alice',
      body: { narration: 'June salaries' },
    });
    expect(reply.status).toBe(404);
    expect(reply.body.type).toContain('provider-rejected');
  });

  // Batches (`POST /bulk-payout-items/corrections`) are jobs now: test/bulk-corrections/correction-jobs.test.ts.

  it("lists the items corrected here, newest change first, by the provider's verdict, page by page", async () => {
    const all = await call(h.api, { method: 'GET', path: '/bulk-payout-items', query: 'limit=100' });
    expect(all.status).toBe(200);
    const ids = all.body.items.map((item: { bulkPayoutItemId: string }) => item.bulkPayoutItemId);
    expect(ids).toEqual(expect.arrayContaining([invalidIds[0], invalidIds[1]]));
    const times = all.body.items.map((item: { updatedAt: string }) => item.updatedAt);
    expect([...times].sort().reverse()).toEqual(times);
    const valid = await call(h.api, { method: 'GET', path: '/bulk-payout-items', query: 'isValid=true' });
    expect(valid.body.items.every((item: { isValid: boolean }) => item.isValid)).toBe(true);
    const first = await call(h.api, { method: 'GET', path: '/bulk-payout-items', query: 'limit=1' });
    const second = await call(h.api, {
      method: 'GET',
      path: '/bulk-payout-items',
      query: `limit=1&cursor=${first.body.nextCursor}`,
    });
    expect(second.body.items[0].bulkPayoutItemId).toBe(ids[1]);
    const tampered = await call(h.api, { method: 'GET', path: '/bulk-payout-items', query: 'cursor=abc' });
    expect(tampered.status).toBe(400);
  });
});
