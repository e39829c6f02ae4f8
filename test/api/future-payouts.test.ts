import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FutureMovement } from '../../lib/future-payouts/future-payouts.js';
import { servedBy } from '../../lib/local/function-attribution.js';
import { DynamoDbProviderScheduleStore } from '../../lib/provider-schedules/store/dynamodb-schedule-store.js';
import { type ApiHarness, bankTransfer, call, startApiHarness } from './support/harness.js';

let h: ApiHarness;
beforeAll(async () => {
  h = await startApiHarness();
});
afterAll(async () => h.close());

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
const lagosDay = (days: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Lagos' }).format(
    new Date(Date.now() + days * 86_400_000),
  );

const shared = { bankCode: '058', accountNumber: '0123456789', accountName: 'Ada Obi' };
const ownOnly = { bankCode: '044', accountNumber: '0987654321', accountName: 'Bola Ltd' };

describe('GET /future-payouts', () => {
  it('lists every planned movement on both sides, earliest first, and flags an account paid on both', async () => {
    const scheduled = await call(h.api, {
      method: 'POST',
      path: '/payouts',
      headers: { 'idempotency-key': 'future-1' },
      body: bankTransfer({ scheduleAt: inDays(2), beneficiary: shared }),
    });
    expect(scheduled.status).toBe(201);
    const recurring = await call(h.api, {
      method: 'POST',
      path: '/recurring-payouts',
      headers: { 'idempotency-key': 'future-2' },
      body: {
        ...bankTransfer({ beneficiary: ownOnly, narration: 'weekly wages' }),
        interval: 'weekly',
        startDate: lagosDay(1),
        timeOfDay: '09:00',
      },
    });
    expect(recurring.status).toBe(201);
    const syncedAt = new Date().toISOString();
    // What the provider-schedule sync job writes.
    const store = new DynamoDbProviderScheduleStore(h.runtime.dynamoDb, h.tableName);
    await servedBy('sync-provider-schedules', () =>
      store.putAll([
        {
          kind: 'scheduled',
          id: 'prov-upcoming',
          status: 'PENDING',
          amount: 1_000_000,
          charges: 2688,
          bankCode: shared.bankCode,
          bankName: 'GTBank',
          accountNumber: shared.accountNumber,
          accountName: 'ADA OBI',
          narration: 'their schedule',
          startsAt: inDays(3),
          transactionId: null,
          createdAt: syncedAt,
          syncedAt,
        },
        {
          kind: 'scheduled',
          id: 'prov-past',
          status: 'DISPATCHED',
          amount: 1_000_000,
          charges: 2688,
          bankCode: '057',
          bankName: 'Zenith',
          accountNumber: '1111111111',
          accountName: 'PAST',
          narration: null,
          startsAt: inDays(-3),
          transactionId: 'tx',
          createdAt: syncedAt,
          syncedAt,
        },
      ]),
    );

    const { status, body } = await call(h.api, { method: 'GET', path: '/future-payouts', query: 'days=30' });
    expect(status).toBe(200);
    const items: FutureMovement[] = body.items;
    expect(items.map((item) => item.at)).toEqual([...items.map((item) => item.at)].sort());
    expect(items.every((item) => item.at >= body.from && item.at <= body.to)).toBe(true);

    const ours = items.find((item) => item.source === 'scheduled_payout');
    const theirs = items.find((item) => item.source === 'provider_scheduled');
    expect(ours).toMatchObject({ id: scheduled.body.id, amountKobo: 250_000, bothSides: true });
    expect(theirs).toMatchObject({ id: 'prov-upcoming', amountKobo: 1_000_000, bothSides: true });
    expect(items.some((item) => item.id === 'prov-past')).toBe(false);

    const occurrences = items.filter((item) => item.source === 'recurring_payout');
    expect(occurrences.length).toBeGreaterThanOrEqual(4);
    expect(occurrences.length).toBeLessThanOrEqual(5);
    expect(occurrences.every((item) => item.id === recurring.body.id && !item.bothSides)).toBe(true);
    expect(new Set(occurrences.map((item) => item.detail)).size).toBe(occurrences.length);
    expect(body.bothSides).toBe(2);
  });

  it('answers at most `limit` movements and the rest page by page, none skipped or repeated', async () => {
    const daily = await call(h.api, {
      method: 'POST',
      path: '/recurring-payouts',
      headers: { 'idempotency-key': 'future-daily' },
      body: {
        ...bankTransfer({ narration: 'daily float' }),
        interval: 'daily',
        startDate: lagosDay(1),
        timeOfDay: '07:00',
      },
    });
    expect(daily.status).toBe(201);
    const whole = await call(h.api, { method: 'GET', path: '/future-payouts', query: 'days=366' });
    expect(whole.status).toBe(200);
    // A year of a daily rule alone is 365 movements: more than one page of 100.
    const all: FutureMovement[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const query = `days=366&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const { status, body } = await call(h.api, { method: 'GET', path: '/future-payouts', query });
      expect(status).toBe(200);
      expect(body.items.length).toBeLessThanOrEqual(100);
      expect(body.bothSides).toBe(whole.body.bothSides);
      all.push(...body.items);
      cursor = body.nextCursor;
      pages += 1;
    } while (cursor !== undefined);
    expect(pages).toBeGreaterThan(3);
    expect(all.length).toBeGreaterThan(365);
    const keys = all.map((item) => `${item.at}|${item.source}|${item.id}|${item.detail ?? ''}`);
    expect(new Set(keys).size).toBe(all.length);
    expect(all.map((item) => item.at)).toEqual([...all.map((item) => item.at)].sort());
    expect(whole.body.items.length).toBeLessThanOrEqual(500);
    expect(all.slice(0, whole.body.items.length)).toEqual(whole.body.items);
  });

  it.each([
    ['days=0', 'days'],
    ['days=367', 'days'],
    ['days=soon', 'days'],
    ['horizon=3', 'horizon'],
    ['limit=0', 'limit'],
    ['limit=501', 'limit'],
    ['cursor=bm90LWEtY3Vyc29y', 'cursor'],
  ])('refuses %s with a problem naming the field', async (query, field) => {
    const { status, body } = await call(h.api, { method: 'GET', path: '/future-payouts', query });
    expect(status).toBe(400);
    expect(body.errors[0].path).toMatch(new RegExp(`^(query.)?${field}$`));
  });
});
