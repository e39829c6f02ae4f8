import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runSweep } from '../../lib/jobs/scheduled.js';
import { servedBy } from '../../lib/local/function-attribution.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { type ApiHarness, bankTransfer, call, startApiHarness } from './support/harness.js';

const INSTANT_PAYOUT = '/settlement/instant/payout';

let h: ApiHarness;
let keyCounter = 0;
const newKey = () => `key-${Date.now()}-${++keyCounter}`;

beforeAll(async () => {
  // A low approval threshold so the four-eyes rule can be exercised with small amounts.
  h = await startApiHarness({ env: { APPROVAL_THRESHOLD_KOBO: '10000000' } });
});
afterAll(async () => h?.close());
beforeEach(async () => {
  await call(h.api, { method: 'POST', path: '/controls/resume', body: {} });
});

const create = (body: unknown, key = newKey(), principal = 'alice') =>
  call(h.api, { method: 'POST', path: '/payouts', headers: { 'Idempotency-Key': key }, body, principal });

describe('POST /payouts', () => {
  it('creates a payout, submits it at once and answers 201 with the paid payout', async () => {
    const reply = await create(bankTransfer());
    expect(reply.status).toBe(201);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.body).toMatchObject({
      type: 'bank_transfer',
      status: 'succeeded',
      amount: 250_000,
      currency: 'NGN',
      beneficiary: { bankCode: '058', accountNumber: '0123456789', accountName: 'Ada Obi' },
      requestedBy: { id: 'alice', kind: 'user' },
      receipt: { status: 'SUCCESS', charges: 1075 },
    });
    expect(reply.headers.location).toBe(`/payouts/${reply.body.id}`);
  });

  it('answers a replay of the same key and body with 200, the same payout and Idempotent-Replayed: true', async () => {
    const key = newKey();
    const first = await create(bankTransfer(), key);
    const calls = h.sandbox.stats().requests[INSTANT_PAYOUT];
    const replay = await create(bankTransfer(), key);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
    expect(h.sandbox.stats().requests[INSTANT_PAYOUT]).toBe(calls);
  });

  it('answers 409 when the same key comes with a different body', async () => {
    const key = newKey();
    await create(bankTransfer(), key);
    const reply = await create(bankTransfer({ amount: 250_100 }), key);
    expect(reply.status).toBe(409);
    expect(reply.headers['content-type']).toBe('application/problem+json');
    expect(reply.body).toMatchObject({
      status: 409,
      title: expect.any(String),
      detail: expect.stringContaining(key),
    });
  });

  it('refuses a request without Idempotency-Key with a 400 naming the header', async () => {
    const reply = await call(h.api, { method: 'POST', path: '/payouts', body: bankTransfer() });
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toEqual([{ path: 'Idempotency-Key', message: 'header is required' }]);
  });

  it.each([
    [
      'a 9-digit account number',
      { beneficiary: { bankCode: '058', accountNumber: '012345678', accountName: 'A' } },
      'beneficiary.accountNumber',
    ],
    [
      'an 11-digit account number',
      { beneficiary: { bankCode: '058', accountNumber: '01234567890', accountName: 'A' } },
      'beneficiary.accountNumber',
    ],
    ['a negative amount', { amount: -100 }, 'amount'],
    ['a fractional amount', { amount: 100.5 }, 'amount'],
    ['an amount as a string', { amount: '100' }, 'amount'],
    ['an unknown field', { colour: 'blue' }, 'colour'],
    ['a past scheduleAt', { scheduleAt: '2020-01-01T00:00:00Z' }, 'scheduleAt'],
  ])('refuses %s with a 400 naming the field and writes nothing', async (_name, overrides, path) => {
    const before = (await h.items()).length;
    const reply = await create(bankTransfer(overrides));
    expect(reply.status).toBe(400);
    expect(reply.body.errors.map((issue: { path: string }) => issue.path)).toContain(path);
    expect((await h.items()).length).toBe(before);
  });

  it('refuses malformed JSON with a 400', async () => {
    const reply = await create('{"type": "bank_transfer",');
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0].path).toBe('(body)');
  });

  it('refuses an idempotency key longer than 255 characters', async () => {
    const reply = await create(bankTransfer(), 'k'.repeat(256));
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0].path).toBe('Idempotency-Key');
  });

  it('accepts a future scheduleAt and leaves the payout scheduled', async () => {
    const scheduleAt = new Date(Date.now() + 3_600_000).toISOString();
    const reply = await create(bankTransfer({ scheduleAt }));
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ status: 'scheduled', scheduleAt });
  });
});

describe('GET /payouts/{id}', () => {
  it('answers the payout with its audit trail, oldest first', async () => {
    const created = await create(bankTransfer());
    const reply = await call(h.api, { method: 'GET', path: `/payouts/${created.body.id}` });
    expect(reply.status).toBe(200);
    expect(reply.body.audit.map((event: { to: string }) => event.to)).toEqual([
      'pending',
      'submitting',
      'succeeded',
    ]);
    expect(reply.body.audit[0]).toMatchObject({ sequence: 1, from: null, actor: { id: 'alice' } });
  });

  it('answers 404 for an unknown id and for an id that cannot exist', async () => {
    for (const id of ['01ARZ3NDEKTSV4RRFFQ69G5FAV', 'not-an-id!', '%E0%A4%A']) {
      const reply = await call(h.api, { method: 'GET', path: `/payouts/${id}` });
      expect(reply.status).toBe(404);
      expect(reply.headers['content-type']).toBe('application/problem+json');
    }
  });
});

describe('GET /payouts/{id}/audit', () => {
  /** Every page of the trail at `limit`, following nextCursor. */
  async function allPages(id: string, limit: number) {
    const pages: number[][] = [];
    let cursor: string | undefined;
    do {
      const reply = await call(h.api, {
        method: 'GET',
        path: `/payouts/${id}/audit`,
        query: `limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
      });
      expect(reply.status).toBe(200);
      pages.push(reply.body.items.map((event: { sequence: number }) => event.sequence));
      cursor = reply.body.nextCursor;
    } while (cursor && pages.length < 10);
    return pages;
  }

  it('pages through the whole trail oldest first, each event once, across audit items holding several', async () => {
    // Created already claimed: events 1 and 2 share one audit item, the outcome (3) is another.
    const created = await create(bankTransfer());
    const whole = await call(h.api, { method: 'GET', path: `/payouts/${created.body.id}/audit` });
    expect(whole.body.items.map((event: { to: string }) => event.to)).toEqual([
      'pending',
      'submitting',
      'succeeded',
    ]);
    expect(whole.body.nextCursor).toBeUndefined();
    expect((await allPages(created.body.id, 1)).flat()).toEqual([1, 2, 3]);
    expect((await allPages(created.body.id, 2))[0]).toEqual([1, 2]);
    expect((await allPages(created.body.id, 2)).flat()).toEqual([1, 2, 3]);
  });

  it('answers 404 for an unknown payout and 400 for a bad limit or a cursor it did not issue', async () => {
    const unknown = await call(h.api, { method: 'GET', path: '/payouts/01ARZ3NDEKTSV4RRFFQ69G5FAV/audit' });
    expect(unknown.status).toBe(404);
    const created = await create(bankTransfer());
    for (const query of [
      'limit=0',
      'limit=101',
      'cursor=not-a-cursor',
      'cursor=eyJhZnRlciI6MX0',
      'other=1',
    ]) {
      const reply = await call(h.api, { method: 'GET', path: `/payouts/${created.body.id}/audit`, query });
      expect(reply.status, query).toBe(400);
    }
  });
});

describe('GET /payouts', () => {
  it('lists newest first and pages with an opaque cursor', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await create(bankTransfer({ narration: `page test ${i}` }))).body.id);
    const first = await call(h.api, { method: 'GET', path: '/payouts', query: 'limit=2' });
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(2);
    expect(first.body.items[0].id).toBe(ids[2]);
    expect(first.body.items[1].id).toBe(ids[1]);
    const second = await call(h.api, {
      method: 'GET',
      path: '/payouts',
      query: `limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`,
    });
    expect(second.body.items[0].id).toBe(ids[0]);
  });

  it('filters by status and type', async () => {
    const scheduleAt = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await create(bankTransfer({ scheduleAt }));
    const reply = await call(h.api, {
      method: 'GET',
      path: '/payouts',
      query: 'status=scheduled&type=bank_transfer',
    });
    expect(reply.status).toBe(200);
    expect(reply.body.items.every((p: { status: string }) => p.status === 'scheduled')).toBe(true);
    expect(reply.body.items.map((p: { id: string }) => p.id)).toContain(scheduled.body.id);
  });

  it.each([
    ['limit=0', 'query.limit'],
    ['limit=101', 'query.limit'],
    ['limit=ten', 'query.limit'],
    ['status=lost', 'query.status'],
    ['type=cheque', 'query.type'],
    ['from=yesterday', 'query.from'],
    ['colour=blue', 'query.colour'],
    ['cursor=not-a-cursor', 'cursor'],
  ])('refuses %s with a 400 naming the parameter', async (query, path) => {
    const reply = await call(h.api, { method: 'GET', path: '/payouts', query });
    expect(reply.status).toBe(400);
    expect(reply.body.errors.map((issue: { path: string }) => issue.path)).toContain(path);
  });
});

/** The instant `iso` as a wall clock `offsetMinutes` east of UTC would write it, e.g. `…T01:00:00.000+01:00`. */
function withOffset(iso: string, offsetMinutes: number): string {
  const local = new Date(Date.parse(iso) + offsetMinutes * 60_000).toISOString().slice(0, -1);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const magnitude = Math.abs(offsetMinutes);
  const hours = String(Math.floor(magnitude / 60)).padStart(2, '0');
  return `${local}${sign}${hours}:${String(magnitude % 60).padStart(2, '0')}`;
}

const DAY_MS = 86_400_000;
const idsOf = (reply: { body: { items: { id: string }[] } }) => reply.body.items.map((p) => p.id);

describe('GET /payouts: date parameters', () => {
  it('answers 400 naming from and to when from is after to, instead of a 500', async () => {
    const reply = await call(h.api, {
      method: 'GET',
      path: '/payouts',
      query: 'from=2027-01-01T00:00:00Z&to=2020-01-01T00:00:00Z',
    });
    expect(reply.status).toBe(400);
    expect(reply.body.errors.map((issue: { path: string }) => issue.path).sort()).toEqual([
      'query.from',
      'query.to',
    ]);
  });

  it('lists the same payouts for one instant written with an offset or in Z', async () => {
    const first = await create(bankTransfer({ narration: 'offset test a' }));
    const second = await create(bankTransfer({ narration: 'offset test b' }));
    const from: string = first.body.createdAt;
    const to: string = second.body.createdAt;
    const inZ = await call(h.api, {
      method: 'GET',
      path: '/payouts',
      query: `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
    });
    expect(idsOf(inZ)).toEqual([second.body.id, first.body.id]);
    for (const [fromOffset, toOffset] of [
      [60, 60],
      [840, -720],
      [-720, 840],
      [330, 0],
    ] as const) {
      const query = `from=${encodeURIComponent(withOffset(from, fromOffset))}&to=${encodeURIComponent(withOffset(to, toOffset))}`;
      const reply = await call(h.api, { method: 'GET', path: '/payouts', query });
      expect(reply.status, query).toBe(200);
      expect(idsOf(reply), query).toEqual(idsOf(inZ));
      // Each filter alone too: `from` with the listing open-ended, `to` with its default `from`.
      const fromOnly = await call(h.api, {
        method: 'GET',
        path: '/payouts',
        query: `from=${encodeURIComponent(withOffset(from, fromOffset))}`,
      });
      expect(idsOf(fromOnly), query).toContain(first.body.id);
      const toOnly = await call(h.api, {
        method: 'GET',
        path: '/payouts',
        query: `to=${encodeURIComponent(withOffset(to, toOffset))}&limit=100`,
      });
      expect(idsOf(toOnly), query).toEqual(expect.arrayContaining([first.body.id, second.body.id]));
    }
  });

  it('refuses a range longer than 400 days with a 400 instead of walking thousands of partitions', async () => {
    const now = Date.now();
    const daysAgo = (days: number) => encodeURIComponent(new Date(now - days * DAY_MS).toISOString());
    for (const query of [
      `from=${daysAgo(401)}`,
      `from=${daysAgo(401)}&to=${daysAgo(0)}`,
      'from=2020-01-01T00:00:00Z&to=2021-02-05T00:00:01Z',
      'status=failed&from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z',
    ]) {
      const reply = await call(h.api, { method: 'GET', path: '/payouts', query });
      expect(reply.status, query).toBe(400);
      expect(reply.body.errors, query).toEqual([
        { path: 'query.from', message: expect.stringContaining('at most 400 days before to') },
      ]);
    }
    // Exactly 400 days is within the bound.
    const bound = await call(h.api, {
      method: 'GET',
      path: '/payouts',
      query: 'from=2020-01-01T00:00:00Z&to=2021-02-04T00:00:00Z',
    });
    expect(bound.status).toBe(200);
  });

  it('refuses an instant outside the years 2000 to 2999 with a 400 naming it, instead of a 503 after 24,000 partitions', async () => {
    for (const [query, path] of [
      ['from=0001-01-01T00:00:00Z', 'query.from'],
      ['from=1999-12-31T23:59:59Z&to=2000-01-02T00:00:00Z', 'query.from'],
      // The instant decides, not the text: 2000-01-01 at 00:30 in Lagos is still 1999 in UTC.
      ['from=2000-01-01T00:30:00%2B01:00&to=2000-01-02T00:00:00Z', 'query.from'],
      ['to=3000-01-01T00:00:00Z', 'query.to'],
      ['to=9999-12-31T23:59:59Z', 'query.to'],
    ]) {
      const reply = await call(h.api, { method: 'GET', path: '/payouts', query });
      expect(reply.status, query).toBe(400);
      expect(reply.body.errors, query).toEqual([{ path, message: expect.stringContaining('2000-01-01') }]);
    }
  });
});

describe('POST /payouts/{id}/cancel', () => {
  it('cancels a payout that has not been submitted', async () => {
    const scheduleAt = new Date(Date.now() + 3_600_000).toISOString();
    const created = await create(bankTransfer({ scheduleAt }));
    const reply = await call(h.api, {
      method: 'POST',
      path: `/payouts/${created.body.id}/cancel`,
      body: { reason: 'supplier asked' },
      principal: 'bob',
    });
    expect(reply.status).toBe(200);
    expect(reply.body.status).toBe('cancelled');
  });

  it('answers 409 once the payout has been submitted', async () => {
    const created = await create(bankTransfer());
    expect(created.body.status).toBe('succeeded');
    const reply = await call(h.api, { method: 'POST', path: `/payouts/${created.body.id}/cancel` });
    expect(reply.status).toBe(409);
    expect(reply.headers['content-type']).toBe('application/problem+json');
  });

  it('answers 404 for an unknown payout', async () => {
    const reply = await call(h.api, { method: 'POST', path: '/payouts/01ARZ3NDEKTSV4RRFFQ69G5FAV/cancel' });
    expect(reply.status).toBe(404);
  });
});

describe('POST /payouts/{id}/approve', () => {
  const large = () => bankTransfer({ amount: 20_000_000 });

  it('refuses approval by the requester with 403', async () => {
    const created = await create(large(), newKey(), 'alice');
    expect(created.body.status).toBe('pending_approval');
    const reply = await call(h.api, {
      method: 'POST',
      path: `/payouts/${created.body.id}/approve`,
      principal: 'alice',
    });
    expect(reply.status).toBe(403);
    expect(reply.headers['content-type']).toBe('application/problem+json');
  });

  it('lets another principal approve, records the approver, and the sweeper pays it', async () => {
    const created = await create(large(), newKey(), 'alice');
    const reply = await call(h.api, {
      method: 'POST',
      path: `/payouts/${created.body.id}/approve`,
      principal: 'bob',
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: 'pending', approvedBy: { id: 'bob', kind: 'user' } });
    await servedBy('sweep-due-payouts', () => runSweep(payoutSweeper(payoutEngineOf(h.runtime)), 60_000));
    const after = await call(h.api, { method: 'GET', path: `/payouts/${created.body.id}` });
    expect(after.body.status).toBe('succeeded');
  });

  it('answers 409 when the payout does not wait for approval', async () => {
    const created = await create(bankTransfer(), newKey(), 'alice');
    const reply = await call(h.api, {
      method: 'POST',
      path: `/payouts/${created.body.id}/approve`,
      principal: 'bob',
    });
    expect(reply.status).toBe(409);
  });
});

describe('POST /payouts/{id}/reject', () => {
  const waiting = async () => {
    const created = await create(bankTransfer({ amount: 20_000_000 }), newKey(), 'alice');
    expect(created.body.status).toBe('pending_approval');
    return created.body.id as string;
  };
  const reject = (id: string, principal: string, body: unknown = { reason: 'not on the vendor list' }) =>
    call(h.api, { method: 'POST', path: `/payouts/${id}/reject`, body, principal });

  it('lets a second person reject a waiting payout with a reason: cancelled for good, audited, never sent', async () => {
    const id = await waiting();
    const sends = h.sandbox.stats().requests[INSTANT_PAYOUT] ?? 0;
    const reply = await reject(id, 'bob');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      status: 'cancelled',
      rejection: { by: { id: 'bob', kind: 'user' }, reason: 'not on the vendor list' },
    });
    const after = await call(h.api, { method: 'GET', path: `/payouts/${id}` });
    expect(after.body.audit.at(-1)).toMatchObject({
      from: 'pending_approval',
      to: 'cancelled',
      actor: { id: 'bob' },
      reason: 'rejected by bob: not on the vendor list',
    });
    // Final: no approval follows a rejection, and the sweeper sends nothing.
    const approved = await call(h.api, {
      method: 'POST',
      path: `/payouts/${id}/approve`,
      principal: 'carol',
    });
    expect(approved.status).toBe(409);
    await servedBy('sweep-due-payouts', () => runSweep(payoutSweeper(payoutEngineOf(h.runtime)), 60_000));
    expect(h.sandbox.stats().requests[INSTANT_PAYOUT] ?? 0).toBe(sends);
  });

  it('refuses the requester, who cancels their own instead, with 403; the payout still waits', async () => {
    const id = await waiting();
    const reply = await reject(id, 'alice');
    expect(reply.status).toBe(403);
    expect(reply.body.detail).toContain('cancels their own');
    expect((await call(h.api, { method: 'GET', path: `/payouts/${id}` })).body.status).toBe(
      'pending_approval',
    );
  });

  it('needs a reason: 400 naming it, nothing changed', async () => {
    const id = await waiting();
    for (const body of [{}, { reason: '   ' }]) {
      const reply = await reject(id, 'bob', body);
      expect(reply.status).toBe(400);
      expect(reply.body.errors.map((issue: { path: string }) => issue.path)).toEqual(['reason']);
    }
    expect((await call(h.api, { method: 'GET', path: `/payouts/${id}` })).body.status).toBe(
      'pending_approval',
    );
  });

  it('answers 409 for a payout that does not wait for approval', async () => {
    const created = await create(bankTransfer(), newKey(), 'alice');
    expect((await reject(created.body.id, 'bob')).status).toBe(409);
  });
});

describe('pausing', () => {
  it('holds new payouts in pending without calling the provider until resumed', async () => {
    const paused = await call(h.api, {
      method: 'POST',
      path: '/controls/pause',
      body: { reason: 'bank incident' },
      principal: 'carol',
    });
    expect(paused.body).toMatchObject({ paused: true, reason: 'bank incident', updatedBy: { id: 'carol' } });
    const calls = h.sandbox.stats().requests[INSTANT_PAYOUT] ?? 0;

    const created = await create(bankTransfer());
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('pending');
    await servedBy('sweep-due-payouts', () => runSweep(payoutSweeper(payoutEngineOf(h.runtime)), 60_000));
    expect((await call(h.api, { method: 'GET', path: `/payouts/${created.body.id}` })).body.status).toBe(
      'pending',
    );
    expect(h.sandbox.stats().requests[INSTANT_PAYOUT] ?? 0).toBe(calls);

    const resumed = await call(h.api, { method: 'POST', path: '/controls/resume', principal: 'carol' });
    expect(resumed.body.paused).toBe(false);
    await servedBy('sweep-due-payouts', () => runSweep(payoutSweeper(payoutEngineOf(h.runtime)), 60_000));
    expect((await call(h.api, { method: 'GET', path: `/payouts/${created.body.id}` })).body.status).toBe(
      'succeeded',
    );
    expect(h.sandbox.stats().requests[INSTANT_PAYOUT]).toBe(calls + 1);
  });

  it('reports the controls and requires a reason to pause', async () => {
    expect((await call(h.api, { method: 'GET', path: '/controls' })).body.paused).toBe(false);
    const reply = await call(h.api, { method: 'POST', path: '/controls/pause', body: {} });
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0].path).toBe('reason');
  });
});
