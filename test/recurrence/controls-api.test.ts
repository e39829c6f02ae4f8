import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FutureMovement } from '../../lib/future-payouts/future-payouts.js';
import { defaultEngineConfig } from '../../lib/payouts/config.js';
import { type ApiHarness, bankTransfer, call, startApiHarness } from '../api/support/harness.js';

let h: ApiHarness;
beforeAll(async () => {
  h = await startApiHarness();
});
afterAll(async () => h.close());

const lagosDay = (offsetDays: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Lagos' }).format(
    new Date(Date.now() + offsetDays * 86_400_000),
  );

const rule = (overrides: Record<string, unknown> = {}) => ({
  ...bankTransfer(),
  interval: 'daily',
  startDate: lagosDay(2),
  timeOfDay: '09:00',
  ...overrides,
});

const create = (key: string, body: unknown, principal = 'alice') =>
  call(h.api, {
    method: 'POST',
    path: '/recurring-payouts',
    headers: { 'Idempotency-Key': key },
    body,
    principal,
  });

const approve = (id: string, principal: string) =>
  call(h.api, { method: 'POST', path: `/recurring-payouts/${id}/approve`, body: {}, principal });

async function futureItems(narration: string): Promise<FutureMovement[]> {
  const { body } = await call(h.api, { method: 'GET', path: '/future-payouts', query: 'days=7' });
  return (body.items as FutureMovement[]).filter((item) => item.narration === narration);
}

describe('recurring payouts pass the control gate', () => {
  it('refuses a rule above the per-payout maximum with a 400 naming amount, and stores and lists nothing', async () => {
    const tooMuch = defaultEngineConfig.maxInstructionKobo + 1;
    const refused = await create('above-max', rule({ amount: tooMuch, narration: 'above the maximum' }));
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([{ path: 'amount', message: expect.stringMatching(/at most/) }]);

    const stored = (await h.items()).filter(
      (item) => String(item.pk).startsWith('RECURRENCE#') || String(item.pk).includes('above-max'),
    );
    expect(stored).toEqual([]);
    const listed = await call(h.api, { method: 'GET', path: '/recurring-payouts' });
    expect(listed.body.items.some((r: { narration: string }) => r.narration === 'above the maximum')).toBe(
      false,
    );
    expect(await futureItems('above the maximum')).toEqual([]);

    // Nothing was stored, so the key is still free for a valid request.
    const valid = await create(
      'above-max',
      rule({ narration: 'at the maximum', amount: tooMuch - 1 }),
      'alice',
    );
    expect(valid.status).toBe(201);
  });

  it('keeps a rule at the approval threshold waiting until a second person approves it; its creator cannot', async () => {
    const amount = defaultEngineConfig.approvalThresholdKobo;
    const created = await create('needs-approval', rule({ amount, narration: 'needs four eyes' }), 'alice');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'pending_approval',
      statusReason: expect.stringMatching(/approval threshold/),
      createdBy: { id: 'alice', kind: 'user' },
    });
    expect(created.body.approvedBy).toBeUndefined();
    const waiting = await futureItems('needs four eyes');
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting.every((item) => item.source === 'recurring_payout' && item.awaitsApproval)).toBe(true);

    const queue = async (viewer: string) =>
      (await call(h.api, { method: 'GET', path: '/approvals', principal: viewer })).body.items.filter(
        (item: { id: string }) => item.id === created.body.id,
      );
    expect(await queue('bob')).toMatchObject([
      {
        id: created.body.id,
        amount,
        requestedBy: { id: 'alice' },
        approve: { method: 'POST', path: `/recurring-payouts/${created.body.id}/approve` },
      },
    ]);
    expect(await queue('alice')).toEqual([]);
    const tampered = await call(h.api, {
      method: 'GET',
      path: '/approvals',
      query: 'kind=recurring-payout&cursor=bm90LWEtY3Vyc29y',
      principal: 'bob',
    });
    expect(tampered.status).toBe(400);

    for (const creator of ['alice', 'ALICE']) {
      const own = await approve(created.body.id, creator);
      expect(own.status).toBe(403);
      expect(own.body.detail).toMatch(/cannot approve/);
    }
    const stillWaiting = await call(h.api, { method: 'GET', path: `/recurring-payouts/${created.body.id}` });
    expect(stillWaiting.body.status).toBe('pending_approval');

    const approved = await approve(created.body.id, 'bob');
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      status: 'active',
      approvedBy: { id: 'bob', kind: 'user' },
      nextOccurrence: { localDate: lagosDay(2) },
    });
    expect(
      approved.body.audit.map((e: { action: string; actor: { id: string } }) => [e.action, e.actor.id]),
    ).toEqual([
      ['created', 'alice'],
      ['approved', 'bob'],
    ]);
    const listedNow = await futureItems('needs four eyes');
    expect(listedNow.length).toBe(waiting.length);
    expect(listedNow.every((item) => !item.awaitsApproval)).toBe(true);

    expect(await queue('bob')).toEqual([]);
    expect((await approve(created.body.id, 'carol')).status).toBe(409);
    expect((await approve('01NOPE', 'carol')).status).toBe(404);
  });

  it('lets a second person reject a rule waiting for approval, with a reason: cancelled for good, none of it planned', async () => {
    const amount = defaultEngineConfig.approvalThresholdKobo;
    const created = await create('rejected-rule', rule({ amount, narration: 'rejected rule' }), 'alice');
    expect(created.body.status).toBe('pending_approval');
    const reject = (principal: string, body: unknown) =>
      call(h.api, { method: 'POST', path: `/recurring-payouts/${created.body.id}/reject`, body, principal });
    expect((await reject('alice', { reason: 'mine' })).status).toBe(403);
    expect((await reject('bob', {})).status).toBe(400);
    const rejected = await reject('bob', { reason: 'the vendor contract ended' });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({
      status: 'cancelled',
      rejection: { by: { id: 'bob', kind: 'user' }, reason: 'the vendor contract ended' },
    });
    expect(rejected.body.audit.at(-1)).toMatchObject({ action: 'rejected', actor: { id: 'bob' } });
    expect((await approve(created.body.id, 'carol')).status).toBe(409);
    expect(await futureItems('rejected rule')).toEqual([]);
  });

  it('flags a scheduled payout at the approval threshold as awaiting approval in GET /future-payouts', async () => {
    const scheduleAt = new Date(Date.now() + 3_600_000).toISOString();
    const amount = defaultEngineConfig.approvalThresholdKobo;
    const large = await call(h.api, {
      method: 'POST',
      path: '/payouts',
      headers: { 'Idempotency-Key': 'scheduled-large' },
      body: bankTransfer({ amount, scheduleAt, narration: 'large one-off' }),
    });
    expect(large.status).toBe(201);
    expect(await futureItems('large one-off')).toMatchObject([
      { source: 'scheduled_payout', id: large.body.id, awaitsApproval: true },
    ]);
  });

  it('needs no approval below the threshold and lists the rule as money to be paid', async () => {
    const created = await create('below-threshold', rule({ narration: 'small and regular' }));
    expect(created.body.status).toBe('active');
    const items = await futureItems('small and regular');
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((item) => !item.awaitsApproval)).toBe(true);
    expect((await approve(created.body.id, 'bob')).status).toBe(409);
  });
});
