import { describe, expect, it } from 'vitest';
import type { RecurrentPayout, ScheduledPayout } from '../../lib/provider/index.js';
import {
  type ProviderSchedulePage,
  ProviderScheduleService,
  type ProviderScheduleSource,
} from '../../lib/provider-schedules/provider-schedule-service.js';
import { InMemoryProviderScheduleStore } from '../../lib/provider-schedules/store/in-memory-schedule-store.js';

/**
 * The provider-schedule sync against its store's in-memory implementation and a provider that answers pages from
 * memory: how it walks, stops, resumes and flags. test/recurrence/provider-schedules.test.ts runs it against the
 * sandbox and DynamoDB Local.
 */
const NOW = new Date('2026-12-01T09:00:00.000Z');
const clock = { now: () => NOW };

function scheduled(id: string, accountNumber = '0123456789'): ScheduledPayout {
  return {
    id,
    email: null,
    amount: 1500,
    status: 'SCHEDULED',
    charges: 25,
    scheduleDate: '2026-12-10T09:00:00.000Z',
    transactionId: null,
    accountNumber,
    accountName: 'Ada Obi',
    bankName: 'GTBank',
    bankCode: '058',
    narration: 'rent',
    metadata: null,
    createdAt: '2026-11-01T08:00:00.000Z',
  };
}

function recurrent(id: string): RecurrentPayout {
  return {
    id,
    email: 'ops@example.com',
    amount: 2000,
    status: 'ACTIVE',
    charges: 25,
    interval: 'monthly',
    startDate: '2026-11-01T09:00:00.000Z',
    endDate: '2027-11-01T09:00:00.000Z',
    bankName: 'GTBank',
    bankCode: '058',
    accountName: 'Bola Ade',
    accountNumber: '9876543210',
    narration: 'salary',
    metadata: null,
    createdAt: '2026-10-01T08:00:00.000Z',
  };
}

/** A provider whose lists are `pages` long (each page a list of records), counting every page it is asked for. */
function providerWith(scheduledPages: ScheduledPayout[][], recurrentPages: RecurrentPayout[][]) {
  const reads: string[] = [];
  const pageOf = <T>(pages: T[][], page: number): ProviderSchedulePage<T> => ({
    items: pages[page - 1] ?? [],
    pagination: { totalPages: pages.length },
  });
  const source: ProviderScheduleSource = {
    listScheduled: async ({ page = 1 }) => {
      reads.push(`scheduled ${page}`);
      return pageOf(scheduledPages, page);
    },
    listRecurrent: async ({ page = 1 }) => {
      reads.push(`recurrent ${page}`);
      return pageOf(recurrentPages, page);
    },
  };
  return { source, reads };
}

function serviceWith(ours: string[] = []) {
  const store = new InMemoryProviderScheduleStore();
  const service = new ProviderScheduleService({ store, clock, ourBeneficiaries: async () => new Set(ours) });
  return { store, service };
}

describe('the provider-schedule sync', () => {
  it('walks every page of both lists, then records the counts as the finished sync', async () => {
    const { store, service } = serviceWith();
    const { source, reads } = providerWith(
      [[scheduled('S1'), scheduled('S2')], [scheduled('S3')]],
      [[recurrent('R1')]],
    );
    const run = await service.sync(source);
    expect(run).toEqual({
      lastSyncAt: NOW.toISOString(),
      scheduled: 3,
      recurrent: 1,
      truncated: false,
      complete: true,
    });
    expect(reads).toEqual(['scheduled 1', 'scheduled 2', 'recurrent 1']);
    expect(await store.getSyncStatus()).toMatchObject({ scheduled: 3, recurrent: 1 });
    expect(await store.getCursor()).toBeUndefined();
    const entry = (await store.list('scheduled', 10)).find((found) => found.id === 'S1');
    expect(entry).toMatchObject({ amount: 150_000, charges: 2_500, startsAt: '2026-12-10T09:00:00.000Z' });
  });

  it('stops before a page it may not start, and the next run goes on from there without reading a page twice', async () => {
    const { store, service } = serviceWith();
    const { source, reads } = providerWith([[scheduled('S1')], [scheduled('S2')]], [[recurrent('R1')]]);
    let ticks = 0;
    const first = await service.sync(source, { stopStartingAt: 1, now: () => ticks++ });
    expect(first.complete).toBe(false);
    expect(reads).toEqual(['scheduled 1']);
    expect(await store.getSyncStatus()).toBeUndefined();
    expect(await store.getCursor()).toMatchObject({ kind: 'scheduled', page: 2, scheduled: 1 });
    const second = await service.sync(source);
    expect(second).toMatchObject({ complete: true, scheduled: 2, recurrent: 1 });
    expect(reads).toEqual(['scheduled 1', 'scheduled 2', 'recurrent 1']);
  });

  it('says truncated when a list is longer than its page bound', async () => {
    const { service } = serviceWith();
    const { source, reads } = providerWith(
      [[scheduled('S1')], [scheduled('S2')], [scheduled('S3')]],
      [[recurrent('R1')]],
    );
    const run = await service.sync(source, { maxPages: 2 });
    expect(run).toMatchObject({ complete: true, truncated: true, scheduled: 2 });
    expect(reads).toEqual(['scheduled 1', 'scheduled 2', 'recurrent 1']);
  });

  it('flags an upcoming provider schedule whose beneficiary we also pay on a schedule', async () => {
    const { service } = serviceWith(['058:0123456789']);
    const { source } = providerWith([[scheduled('S1'), scheduled('S2', '1111111111')]], [[]]);
    await service.sync(source);
    const { items, sync } = await service.view('scheduled', 10);
    expect(Object.fromEntries(items.map((item) => [item.id, item.alsoScheduledHere]))).toEqual({
      S1: true,
      S2: false,
    });
    expect(items.every((item) => item.upcoming)).toBe(true);
    expect(sync?.lastSyncAt).toBe(NOW.toISOString());
  });
});
