import { afterAll, describe, expect, it } from 'vitest';
import type { ProviderScheduleEntry } from '../../lib/provider-schedules/model.js';
import type { ProviderScheduleRecords } from '../../lib/provider-schedules/records.js';
import { DynamoDbProviderScheduleStore } from '../../lib/provider-schedules/store/dynamodb-schedule-store.js';
import { InMemoryProviderScheduleStore } from '../../lib/provider-schedules/store/in-memory-schedule-store.js';
import { createTestTable } from '../support/dynamodb.js';

/**
 * The provider schedules' view's contract, run against the table (DynamoDB Local) and against memory, so the
 * in-memory store the service's unit tests use cannot drift from the one that ships.
 */
const closers: (() => void)[] = [];
afterAll(() => {
  for (const close of closers) close();
});

const implementations: [string, () => Promise<ProviderScheduleRecords>][] = [
  [
    'DynamoDbProviderScheduleStore',
    async () => {
      const table = await createTestTable('provider-schedules');
      closers.push(() => table.client.destroy());
      return new DynamoDbProviderScheduleStore(table.client, table.tableName);
    },
  ],
  ['InMemoryProviderScheduleStore', async () => new InMemoryProviderScheduleStore()],
];

function entryOf(
  id: string,
  startsAt: string,
  overrides: Partial<ProviderScheduleEntry> = {},
): ProviderScheduleEntry {
  return {
    kind: 'scheduled',
    id,
    status: 'SCHEDULED',
    amount: 150_000,
    charges: 2_500,
    bankCode: '058',
    bankName: 'GTBank',
    accountNumber: '0123456789',
    accountName: 'Ada Obi',
    narration: 'rent',
    startsAt,
    transactionId: null,
    createdAt: '2026-11-01T08:00:00.000Z',
    syncedAt: '2026-12-01T09:00:00.000Z',
    ...overrides,
  };
}

describe.each(implementations)('%s', (_name, make) => {
  it('lists one kind, latest start first, up to the limit', async () => {
    const records = await make();
    await records.putAll([
      entryOf('S1', '2026-12-03T09:00:00.000Z'),
      entryOf('S2', '2026-12-05T09:00:00.000Z'),
      entryOf('S3', '2026-12-04T09:00:00.000Z'),
      entryOf('R1', '2026-12-06T09:00:00.000Z', {
        kind: 'recurrent',
        endsAt: '2027-06-06T09:00:00.000Z',
        interval: 'monthly',
      }),
    ]);
    expect((await records.list('scheduled', 10)).map((entry) => entry.id)).toEqual(['S2', 'S3', 'S1']);
    expect((await records.list('scheduled', 2)).map((entry) => entry.id)).toEqual(['S2', 'S3']);
    const [recurrent] = await records.list('recurrent', 10);
    expect(recurrent).toMatchObject({ id: 'R1', endsAt: '2027-06-06T09:00:00.000Z', interval: 'monthly' });
  });

  it('upserts: an entry synced again replaces the one before, whole', async () => {
    const records = await make();
    await records.putAll([entryOf('S1', '2026-12-03T09:00:00.000Z')]);
    const again = entryOf('S1', '2026-12-03T09:00:00.000Z', { status: 'CANCELLED', accountName: null });
    await records.putAll([again]);
    expect(await records.list('scheduled', 10)).toEqual([again]);
  });

  it('writes more entries than one batch holds', async () => {
    const records = await make();
    const entries = Array.from({ length: 60 }, (_, i) =>
      entryOf(
        `S${String(i).padStart(3, '0')}`,
        `2026-12-${String((i % 28) + 1).padStart(2, '0')}T09:00:00.000Z`,
      ),
    );
    await records.putAll(entries);
    expect(await records.list('scheduled', 100)).toHaveLength(60);
  });

  it('keeps the sync status, and a cursor only until the sync says it finished', async () => {
    const records = await make();
    expect(await records.getSyncStatus()).toBeUndefined();
    expect(await records.getCursor()).toBeUndefined();
    const cursor = {
      kind: 'recurrent' as const,
      page: 3,
      syncedAt: '2026-12-01T09:00:00.000Z',
      scheduled: 200,
      recurrent: 100,
      truncated: false,
    };
    await records.setCursor(cursor);
    expect(await records.getCursor()).toEqual(cursor);
    await records.setCursor(undefined);
    expect(await records.getCursor()).toBeUndefined();
    const status = {
      lastSyncAt: '2026-12-01T09:00:00.000Z',
      scheduled: 200,
      recurrent: 150,
      truncated: true,
    };
    await records.setSyncStatus(status);
    expect(await records.getSyncStatus()).toEqual(status);
  });
});
