import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbBulkItemStore } from '../../lib/bulk-corrections/store/dynamodb-bulk-item-store.js';
import { InvalidTransitionError } from '../../lib/shared/errors.js';
import { type ApiHarness, call, startApiHarness } from '../api/support/harness.js';
import { type JobsHarness, PATCH_PATH, startJobsHarness } from './support.js';

/** The approvals queue's held corrections, as a person other than the requesters sees them. */
async function heldInApprovals(api: ApiHarness['api']): Promise<string[]> {
  const page = await call(api, {
    method: 'GET',
    path: '/approvals',
    principal: 'zoe',
    query: 'kind=bulk-correction&limit=100',
  });
  expect(page.status).toBe(200);
  return page.body.items.map((item: { id: string }) => item.id);
}

describe('cancelling a bulk payout item correction held for approval', () => {
  let h: ApiHarness;
  let itemId: string;

  beforeAll(async () => {
    h = await startApiHarness();
    // A valid item's new destination, with its amount not known here: always held for a second person.
    itemId = h.sandbox.fixtures().bulkPayoutItems.find((item) => item.isValid)?.id ?? '';
    // A narration alone is sent at once: from then on the item, and its held corrections, are known here.
    const known = await call(h.api, {
      method: 'PATCH',
      path: `/bulk-payout-items/${itemId}`,
      principal: 'alice',
      body: { narration: 'June salaries' },
    });
    expect(known.status).toBe(200);
  });
  afterAll(async () => {
    await h.close();
  });

  const patchCount = () => h.sandbox.stats().requests[PATCH_PATH] ?? 0;

  /** A new correction of the item held for a second person; its command paths. */
  async function held(requester = 'alice') {
    const reply = await call(h.api, {
      method: 'PATCH',
      path: `/bulk-payout-items/${itemId}`,
      principal: requester,
      body: { accountNumber: '0123456789' },
    });
    expect(reply.status).toBe(202);
    const correctionId: string = reply.body.correction.correctionId;
    const base = `/bulk-payout-items/${itemId}/corrections/${correctionId}`;
    return { correctionId, approve: `${base}/approve`, cancel: `${base}/cancel` };
  }

  it('withdraws a held correction: 200 cancelled with who, when and why, out of the approvals queue, never sent', async () => {
    const correction = await held();
    expect(await heldInApprovals(h.api)).toContain(correction.correctionId);
    const before = patchCount();
    const cancelled = await call(h.api, {
      method: 'POST',
      path: correction.cancel,
      principal: 'carol',
      body: { reason: 'wrong account' },
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      correctionId: correction.correctionId,
      status: 'cancelled',
      cancelledBy: { id: 'carol' },
      cancelReason: 'wrong account',
    });
    expect(Date.parse(cancelled.body.cancelledAt)).not.toBeNaN();
    expect(await heldInApprovals(h.api)).not.toContain(correction.correctionId);
    const item = await call(h.api, { method: 'GET', path: `/bulk-payout-items/${itemId}` });
    expect(
      item.body.corrections.find((c: { correctionId: string }) => c.correctionId === correction.correctionId),
    ).toMatchObject({ status: 'cancelled', cancelledBy: { id: 'carol' } });
    // Approving it afterwards is refused, and the provider is never called.
    const approval = await call(h.api, { method: 'POST', path: correction.approve, principal: 'bob' });
    expect(approval.status).toBe(409);
    expect(approval.body.type).toContain('invalid-transition');
    expect(patchCount()).toBe(before);
  });

  it('lets the requester withdraw their own correction, without a body: it moves no money', async () => {
    const correction = await held('alice');
    const cancelled = await call(h.api, { method: 'POST', path: correction.cancel, principal: 'ALICE' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled' });
    expect(cancelled.body.cancelReason).toBeUndefined();
  });

  it('refuses to cancel a correction no longer waiting (approved, or cancelled already) with 409, and an unknown one with 404', async () => {
    const approvedOne = await held();
    expect((await call(h.api, { method: 'POST', path: approvedOne.approve, principal: 'bob' })).status).toBe(
      200,
    );
    const afterApproval = patchCount();
    const late = await call(h.api, { method: 'POST', path: approvedOne.cancel, principal: 'carol' });
    expect(late.status).toBe(409);
    expect(late.body.type).toContain('invalid-transition');
    const shown = await call(h.api, { method: 'GET', path: `/bulk-payout-items/${itemId}` });
    expect(
      shown.body.corrections.find(
        (c: { correctionId: string }) => c.correctionId === approvedOne.correctionId,
      ),
    ).toMatchObject({ status: 'approved' });

    const cancelledOne = await held();
    expect(
      (await call(h.api, { method: 'POST', path: cancelledOne.cancel, principal: 'carol' })).status,
    ).toBe(200);
    const again = await call(h.api, { method: 'POST', path: cancelledOne.cancel, principal: 'carol' });
    expect(again.status).toBe(409);

    const unknown = await call(h.api, {
      method: 'POST',
      path: `/bulk-payout-items/${itemId}/corrections/01ARZ3NDEKTSV4RRFFQ69G5FAV/cancel`,
      principal: 'carol',
    });
    expect(unknown.status).toBe(404);
    expect(patchCount()).toBe(afterApproval);
  });

  it('refuses a body with unknown fields or a reason too long with 400, changing nothing', async () => {
    const correction = await held();
    const unknownField = await call(h.api, {
      method: 'POST',
      path: correction.cancel,
      principal: 'carol',
      body: { why: 'x' },
    });
    expect(unknownField.status).toBe(400);
    const tooLong = await call(h.api, {
      method: 'POST',
      path: correction.cancel,
      principal: 'carol',
      body: { reason: 'x'.repeat(10_000) },
    });
    expect(tooLong.status).toBe(400);
    expect(await heldInApprovals(h.api)).toContain(correction.correctionId);
  });

  it('lets exactly one of an approval and a cancel racing win; the provider gets the correction once if the approval won, else never', async () => {
    const winners = new Set<string>();
    // The cancel starts 0 to 60 ms after the approval, so that rounds land on either side of the approval's claim.
    for (const cancelDelayMs of [0, 0, 5, 10, 20, 40, 60]) {
      const correction = await held();
      const before = patchCount();
      const [approval, cancellation] = await Promise.all([
        call(h.api, { method: 'POST', path: correction.approve, principal: 'bob' }),
        new Promise((resolve) => setTimeout(resolve, cancelDelayMs)).then(() =>
          call(h.api, {
            method: 'POST',
            path: correction.cancel,
            principal: 'carol',
            body: { reason: 'race' },
          }),
        ),
      ]);
      expect([approval.status, cancellation.status].sort()).toEqual([200, 409]);
      const shown = await call(h.api, { method: 'GET', path: `/bulk-payout-items/${itemId}` });
      const stored = shown.body.corrections.find(
        (c: { correctionId: string }) => c.correctionId === correction.correctionId,
      );
      if (approval.status === 200) {
        winners.add('approve');
        expect(cancellation.body.type).toContain('invalid-transition');
        expect(stored).toMatchObject({ status: 'approved', approvedBy: { id: 'bob' } });
        expect(stored.cancelledBy).toBeUndefined();
        expect(patchCount()).toBe(before + 1);
      } else {
        winners.add('cancel');
        expect(approval.body.type).toContain('invalid-transition');
        expect(stored).toMatchObject({ status: 'cancelled', cancelledBy: { id: 'carol' } });
        expect(stored.approvedBy).toBeUndefined();
        expect(patchCount()).toBe(before);
      }
      expect(await heldInApprovals(h.api)).not.toContain(correction.correctionId);
    }
    // Which side wins a round is up to timing; every round had exactly one winner, checked above.
    expect(winners.size).toBeGreaterThan(0);
  });

  it('refuses, at the write, a cancel or an approval claim made on a read taken before the other committed', async () => {
    // The window the race leaves whatever the timing: both commands read `pending_approval`, then both write.
    const store = new DynamoDbBulkItemStore(h.runtime.dynamoDb, h.runtime.tableName);
    const carol = { id: 'carol', kind: 'user' } as const;
    const bob = { id: 'bob', kind: 'user' } as const;
    const at = new Date().toISOString();

    const approvedFirst = await held();
    const readByCancel = await store.getPending(itemId, approvedFirst.correctionId);
    if (!readByCancel) throw new Error('the held correction was not stored');
    await store.claimApproval(readByCancel, bob, at);
    await expect(
      store.cancelHeld(readByCancel, { cancelledBy: carol, cancelledAt: at }),
    ).rejects.toBeInstanceOf(InvalidTransitionError);
    expect(await store.getPending(itemId, approvedFirst.correctionId)).toMatchObject({ status: 'approved' });

    const cancelledFirst = await held();
    const readByApproval = await store.getPending(itemId, cancelledFirst.correctionId);
    if (!readByApproval) throw new Error('the held correction was not stored');
    await store.cancelHeld(readByApproval, { cancelledBy: carol, cancelledAt: at });
    await expect(store.claimApproval(readByApproval, bob, at)).rejects.toBeInstanceOf(InvalidTransitionError);
    const stored = await store.getPending(itemId, cancelledFirst.correctionId);
    expect(stored).toMatchObject({ status: 'cancelled', cancelledBy: carol });
    expect(stored?.approvedBy).toBeUndefined();
  });
});

describe('cancelling a held correction job row', () => {
  let h: JobsHarness;
  let validId: string;
  beforeAll(async () => {
    h = await startJobsHarness(0);
    validId = h.sandbox.fixtures().bulkPayoutItems.find((item) => item.isValid)?.id ?? '';
  });
  afterAll(async () => h.close());

  const patchCount = () => h.sandbox.stats().requests[PATCH_PATH] ?? 0;

  it('ends the row cancelled with who withdrew it and why, completes the job, and sends nothing', async () => {
    const accepted = await call(h.api, {
      method: 'POST',
      path: '/bulk-payout-items/corrections',
      principal: 'alice',
      body: { corrections: [{ bulkPayoutItemId: validId, bankCode: '12345' }] },
    });
    expect(accepted.status).toBe(202);
    await h.drain();
    const location = accepted.headers.location ?? '';
    const rows = await call(h.api, { method: 'GET', path: `${location}/items` });
    expect(rows.body.items).toMatchObject([{ status: 'pending_approval' }]);
    const before = patchCount();
    const row = rows.body.items[0];
    const cancelPath = `/bulk-payout-items/${validId}/corrections/${row.correctionId}/cancel`;
    const cancelled = await call(h.api, {
      method: 'POST',
      path: cancelPath,
      principal: 'carol',
      body: { reason: 'sent by mistake' },
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelledBy: { id: 'carol' } });
    const after = await call(h.api, { method: 'GET', path: `${location}/items` });
    expect(after.body.items).toMatchObject([
      {
        status: 'cancelled',
        failure: { code: 'CANCELLED', message: 'cancelled by carol: sent by mistake' },
      },
    ]);
    expect(after.body.items[0].approve).toBeUndefined();
    const job = await call(h.api, { method: 'GET', path: location });
    expect(job.body).toMatchObject({
      status: 'completed',
      counts: { cancelled: 1 },
      progress: { done: 1, total: 1 },
    });
    const csv = await call(h.api, { method: 'GET', path: `${location}/results.csv` });
    expect(String(csv.body).split('\r\n')[1]).toContain(',cancelled,');
    const approval = await call(h.api, { method: 'POST', path: row.approve, principal: 'bob' });
    expect(approval.status).toBe(409);
    expect(patchCount()).toBe(before);
  });
});
