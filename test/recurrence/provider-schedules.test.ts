import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderClient, StaticCredentialsSource } from '../../lib/provider/index.js';
import type { RecurrentPayout, ScheduledPayout } from '../../lib/provider/schemas/payout.js';
import {
  beneficiaryKey,
  flagEntries,
  type ProviderScheduleEntry,
} from '../../lib/provider-schedules/model.js';
import {
  ProviderScheduleService,
  type ProviderScheduleSource,
} from '../../lib/provider-schedules/provider-schedule-service.js';
import { DynamoDbProviderScheduleStore } from '../../lib/provider-schedules/store/dynamodb-schedule-store.js';
import { type Sandbox, startSandbox } from '../../lib/sandbox/index.js';
import { ManualClock } from '../../lib/shared/clock.js';
import { createTestTable } from '../support/dynamodb.js';

const NOW = '2026-03-02T08:00:00.000Z';

function scheduled(
  id: string,
  scheduleDate: string,
  overrides: Partial<ScheduledPayout> = {},
): ScheduledPayout {
  return {
    id,
    email: null,
    amount: 1500.5,
    status: 'PENDING',
    charges: 26.88,
    scheduleDate,
    transactionId: null,
    accountNumber: '0123456789',
    accountName: 'ADA OKAFOR',
    bankName: 'GTBank',
    bankCode: '058',
    narration: 'rent',
    metadata: null,
    createdAt: '2026-02-01T08:00:00.000Z',
    ...overrides,
  };
}

function recurrent(id: string, endDate: string, overrides: Partial<RecurrentPayout> = {}): RecurrentPayout {
  return {
    id,
    email: 'payee@example.com',
    amount: 100,
    status: 'ACTIVE',
    charges: 10.75,
    interval: 'Daily',
    startDate: '2026-01-01T00:00:00.000Z',
    endDate,
    bankName: 'Access',
    bankCode: '044',
    accountName: 'TUNDE BAKARE',
    accountNumber: '0987654321',
    narration: 'allowance',
    metadata: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** One page holding every item, as a provider list with a single page answers. */
async function onePage<T>(items: T[]) {
  return { items, pagination: { totalPages: 1 } };
}

let table: Awaited<ReturnType<typeof createTestTable>>;
let sandbox: Sandbox;
let client: ProviderClient;
beforeAll(async () => {
  table = await createTestTable('provider-schedules');
  sandbox = await startSandbox();
  client = new ProviderClient({
    baseUrl: sandbox.url,
    credentials: new StaticCredentialsSource({ token: sandbox.token, pin: sandbox.pin }),
    retry: { baseDelayMs: 0, maxDelayMs: 0 },
  });
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
  table.client.destroy();
});

describe('flagEntries', () => {
  it('flags only live, upcoming entries whose bank account we also pay on a schedule', () => {
    const entry = (id: string, startsAt: string, status = 'PENDING'): ProviderScheduleEntry => ({
      kind: 'scheduled',
      id,
      status,
      amount: 100,
      charges: 0,
      bankCode: '058',
      bankName: 'GTBank',
      accountNumber: '0123456789',
      accountName: null,
      narration: null,
      startsAt,
      createdAt: NOW,
      syncedAt: NOW,
    });
    const flagged = flagEntries(
      [
        entry('future', '2026-04-01T00:00:00.000Z'),
        entry('past', '2026-01-01T00:00:00.000Z'),
        entry('off', '2026-04-01T00:00:00.000Z', 'CANCELLED'),
      ],
      new Set([beneficiaryKey('058', '0123456789')]),
      new Date(NOW),
    );
    expect(flagged.map((f) => [f.id, f.upcoming, f.alsoScheduledHere])).toEqual([
      ['future', true, true],
      ['past', false, false],
      ['off', false, false],
    ]);
  });
});

describe('provider schedule sync', () => {
  it('copies both provider lists into the view in kobo and flags a beneficiary scheduled on both sides', async () => {
    const source: ProviderScheduleSource = {
      listScheduled: () =>
        onePage([
          scheduled('s-1', '2026-04-01T09:00:00.000Z'),
          scheduled('s-2', '2026-01-01T09:00:00.000Z', { status: 'DISPATCHED' }),
        ]),
      listRecurrent: () => onePage([recurrent('r-1', '2026-12-31T00:00:00.000Z')]),
    };
    const service = new ProviderScheduleService({
      store: new DynamoDbProviderScheduleStore(table.client, table.tableName),
      clock: new ManualClock(NOW),
      ourBeneficiaries: async () => new Set([beneficiaryKey('058', '0123456789')]),
    });
    const status = await service.sync(source);
    expect(status).toMatchObject({ scheduled: 2, recurrent: 1, truncated: false });

    const view = await service.view('scheduled', 10);
    expect(view.sync?.lastSyncAt).toBe(NOW);
    expect(view.items.map((i) => [i.id, i.amount, i.upcoming, i.alsoScheduledHere])).toEqual([
      ['s-1', 150_050, true, true],
      ['s-2', 150_050, false, false],
    ]);
    const recurrentView = await service.view('recurrent', 10);
    expect(recurrentView.items[0]).toMatchObject({
      id: 'r-1',
      interval: 'Daily',
      upcoming: true,
      alsoScheduledHere: false,
    });
  });

  it('walks the sandbox’s real lists through the provider client, within the page bound', async () => {
    const service = new ProviderScheduleService({
      store: new DynamoDbProviderScheduleStore(table.client, table.tableName),
      clock: new ManualClock(NOW),
      ourBeneficiaries: async () => new Set(),
    });
    const status = await service.sync(client.payouts, { maxPages: 2 });
    expect(status.scheduled).toBeGreaterThan(0);
    expect(status.recurrent).toBeGreaterThan(0);
    const { items } = await service.view('recurrent', 50);
    expect(items.length).toBeGreaterThanOrEqual(status.recurrent);
  });

  it('stops starting pages at its stop instant and the next run resumes where it stopped, counting each page once', async () => {
    const store = new DynamoDbProviderScheduleStore(table.client, table.tableName);
    const service = new ProviderScheduleService({
      store,
      clock: new ManualClock(NOW),
      ourBeneficiaries: async () => new Set(),
    });
    const whole = await service.sync(client.payouts, { maxPages: 2 });
    expect(whole.complete).toBe(true);
    const before = await store.getSyncStatus();

    // An injected clock: each look at it is 10 s later, the stop instant 15 s in, so one page starts.
    const later = new ProviderScheduleService({
      store,
      clock: new ManualClock('2026-03-02T09:00:00.000Z'),
      ourBeneficiaries: async () => new Set(),
    });
    let clock = 0;
    const now = () => {
      clock += 10_000;
      return clock;
    };
    const cut = await later.sync(client.payouts, { maxPages: 2, stopStartingAt: 15_000, now });
    expect(cut).toMatchObject({ complete: false, scheduled: whole.scheduled, recurrent: 0 });
    // The view's status still tells the last finished sync; the cursor says where the next run goes on.
    expect(await store.getSyncStatus()).toEqual(before);
    expect(await store.getCursor()).toMatchObject({ kind: 'recurrent', page: 1 });

    const resumed = await later.sync(client.payouts, { maxPages: 2 });
    expect(resumed).toEqual({ ...whole, lastSyncAt: '2026-03-02T09:00:00.000Z', complete: true });
    expect(await store.getSyncStatus()).toEqual({ ...before, lastSyncAt: '2026-03-02T09:00:00.000Z' });
    expect(await store.getCursor()).toBeUndefined();
  });
});
