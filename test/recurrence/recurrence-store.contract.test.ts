import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type OccurrenceRecord,
  OccurrenceState,
  type Recurrence,
  type RecurrenceAuditEvent,
  RecurrenceStatus,
} from '../../lib/recurrence/model.js';
import { DynamoDbRecurrenceStore } from '../../lib/recurrence/store/dynamodb-recurrence-store.js';
import { InMemoryRecurrenceStore } from '../../lib/recurrence/store/in-memory-recurrence-store.js';
import type { RecurrenceStore } from '../../lib/recurrence/store/recurrence-store.js';
import { ConcurrentModificationError } from '../../lib/shared/errors.js';
import { createTestTable } from '../support/dynamodb.js';

/**
 * The recurrence store's contract, run against the table (DynamoDB Local) and against memory, so the in-memory store
 * the service's unit tests use cannot drift from the one that ships. That a payout's creation records its
 * occurrence (`materialisation`) is the table's alone (sweep.test.ts).
 */
const closers: (() => void)[] = [];
afterAll(() => {
  for (const close of closers) close();
});
const implementations: [string, () => Promise<RecurrenceStore>][] = [
  [
    'DynamoDbRecurrenceStore',
    async () => {
      const table = await createTestTable('recurrence-store');
      closers.push(() => table.client.destroy());
      return new DynamoDbRecurrenceStore(table.client, table.tableName);
    },
  ],
  ['InMemoryRecurrenceStore', async () => new InMemoryRecurrenceStore()],
];

const alice = { id: 'alice', kind: 'user' } as const;
let ids = 0;
function recurrenceOf(overrides: Partial<Recurrence> = {}): Recurrence {
  ids += 1;
  return {
    id: `01J00000000000000000RC${String(ids).padStart(4, '0')}`,
    status: RecurrenceStatus.Active,
    rule: {
      interval: 'daily',
      every: 1,
      startDate: '2026-03-02',
      timeOfDay: '10:00',
      timeZone: 'Africa/Lagos',
    },
    template: {
      type: 'bank_transfer',
      amount: 45_000,
      currency: 'NGN',
      narration: 'staff allowance',
      beneficiary: { bankCode: '058', accountNumber: '0123456789', accountName: 'Ada Staff' },
    },
    idempotencyKey: `rule-${ids}`,
    requestFingerprint: 'fp',
    nextIndex: 0,
    nextOccurrenceAt: '2026-03-02T09:00:00.000Z',
    nextLocalDate: '2026-03-02',
    skippedDates: [],
    version: 1,
    createdBy: alice,
    createdAt: `2026-03-01T08:00:${String(ids % 60).padStart(2, '0')}.000Z`,
    updatedAt: '2026-03-01T08:00:00.000Z',
    ...overrides,
  } as Recurrence;
}
const eventOf = (recurrence: Recurrence, action: RecurrenceAuditEvent['action']): RecurrenceAuditEvent => ({
  recurrenceId: recurrence.id,
  sequence: recurrence.version,
  at: recurrence.updatedAt,
  actor: alice,
  action,
  reason: `${action} by alice`,
});
const recordOf = (
  recurrence: Recurrence,
  day: number,
  extra: Partial<OccurrenceRecord> = {},
): OccurrenceRecord => ({
  recurrenceId: recurrence.id,
  localDate: `2026-03-${String(day).padStart(2, '0')}`,
  index: day - 2,
  at: `2026-03-${String(day).padStart(2, '0')}T09:00:00.000Z`,
  state: OccurrenceState.Materialised,
  payoutId: `P-${day}`,
  recordedAt: '2026-03-01T09:00:00.000Z',
  ...extra,
});

describe.each(implementations)('the recurrence store contract: %s', (_name, storeOf) => {
  let store: RecurrenceStore;
  beforeAll(async () => {
    store = await storeOf();
  });

  it('creates a recurrence once per idempotency key, and replaces it only at the version it read', async () => {
    const recurrence = recurrenceOf();
    expect(await store.create(recurrence, eventOf(recurrence, 'created'))).toEqual({
      created: true,
      recurrence,
    });
    const other = recurrenceOf({ idempotencyKey: recurrence.idempotencyKey });
    expect(await store.create(other, eventOf(other, 'created'))).toEqual({
      created: false,
      existing: recurrence,
    });
    const paused = { ...recurrence, status: RecurrenceStatus.Paused, version: 2 };
    await store.replace(recurrence, paused, eventOf(paused, 'paused'));
    await expect(store.replace(recurrence, { ...paused, version: 2 })).rejects.toBeInstanceOf(
      ConcurrentModificationError,
    );
    expect(await store.get(recurrence.id)).toEqual(paused);
    expect((await store.audit(recurrence.id)).map((event) => [event.action, event.committed])).toEqual([
      ['created', true],
      ['paused', true],
    ]);
  });

  it("shows a command's provisional event until the command's own event supersedes it", async () => {
    const recurrence = recurrenceOf();
    await store.create(recurrence, eventOf(recurrence, 'created'));
    await store.recordMaterialised(recordOf(recurrence, 2));
    const provisional = { ...eventOf({ ...recurrence, version: 2 }, 'paused'), commandId: 'CMD-1' };
    expect(await store.holdOccurrence(recurrence.id, '2026-03-02', 'P-2', 'paused', provisional)).toBe(true);
    expect((await store.audit(recurrence.id)).map((event) => [event.action, event.committed])).toEqual([
      ['created', true],
      ['paused', false],
    ]);
    const paused = { ...recurrence, status: RecurrenceStatus.Paused, version: 2 };
    await store.replace(recurrence, paused, provisional);
    expect((await store.audit(recurrence.id)).map((event) => [event.action, event.committed])).toEqual([
      ['created', true],
      ['paused', true],
    ]);
  });

  it("changes an occurrence's record only over the state its writer read", async () => {
    const recurrence = recurrenceOf();
    await store.create(recurrence, eventOf(recurrence, 'created'));
    expect(await store.recordMaterialised(recordOf(recurrence, 3))).toMatchObject({ recorded: true });
    expect(await store.recordMaterialised(recordOf(recurrence, 3))).toMatchObject({ recorded: true });
    expect(await store.recordMaterialised(recordOf(recurrence, 3, { payoutId: 'P-other' }))).toMatchObject({
      recorded: false,
      current: { payoutId: 'P-3' },
    });
    expect(await store.holdOccurrence(recurrence.id, '2026-03-03', 'P-other', 'paused')).toBe(false);
    expect(await store.holdOccurrence(recurrence.id, '2026-03-03', 'P-3', 'paused')).toBe(true);
    // Held: a resume's newer generation materialises it again; the older one does not.
    expect(
      await store.recordMaterialised(recordOf(recurrence, 3, { payoutId: 'P-3b', generation: 1 })),
    ).toMatchObject({
      recorded: false,
    });
    expect(
      await store.recordMaterialised(recordOf(recurrence, 3, { payoutId: 'P-3b', generation: 2 })),
    ).toMatchObject({ recorded: true, record: { payoutId: 'P-3b', generation: 2, state: 'materialised' } });

    const skip = recordOf(recurrence, 4, { state: OccurrenceState.Skipped, reason: 'holiday' });
    const { payoutId: _none, ...unpaidSkip } = skip;
    expect(await store.recordSkipped(unpaidSkip)).toBe(true);
    expect(await store.recordSkipped(unpaidSkip)).toBe(false);
    expect(await store.recordMaterialised(recordOf(recurrence, 4))).toMatchObject({
      recorded: false,
      current: { state: 'skipped' },
    });
    const current = await store.getOccurrence(recurrence.id, '2026-03-03');
    expect(
      await store.recordSkipped({ ...recordOf(recurrence, 3), state: OccurrenceState.Skipped }, current),
    ).toBe(true);
    expect(await store.getOccurrence(recurrence.id, '2026-03-03')).toMatchObject({ state: 'skipped' });
  });

  it('reads the history newest first, before a date, and a range oldest first', async () => {
    const recurrence = recurrenceOf();
    await store.create(recurrence, eventOf(recurrence, 'created'));
    for (const day of [2, 3, 4, 5]) await store.recordMaterialised(recordOf(recurrence, day));
    const dates = (records: OccurrenceRecord[]) => records.map((record) => record.localDate);
    expect(dates(await store.occurrences(recurrence.id, 2))).toEqual(['2026-03-05', '2026-03-04']);
    expect(dates(await store.occurrences(recurrence.id, 2, '2026-03-04'))).toEqual([
      '2026-03-03',
      '2026-03-02',
    ]);
    expect(
      dates(await store.occurrencesFrom(recurrence.id, { from: '2026-03-03', to: '2026-03-04' })),
    ).toEqual(['2026-03-03', '2026-03-04']);
    expect(dates(await store.occurrencesFrom(recurrence.id, { from: '2026-03-04' }))).toEqual([
      '2026-03-04',
      '2026-03-05',
    ]);
  });

  it('finds the active rules due by an instant, earliest first, and lists rules by status', async () => {
    const early = recurrenceOf({ nextOccurrenceAt: '2025-01-01T09:00:00.000Z' });
    const paused = recurrenceOf({
      status: RecurrenceStatus.Paused,
      nextOccurrenceAt: '2025-01-01T08:00:00.000Z',
    });
    const later = recurrenceOf({ nextOccurrenceAt: '2025-01-02T09:00:00.000Z' });
    for (const recurrence of [later, paused, early])
      await store.create(recurrence, eventOf(recurrence, 'created'));
    const due = await store.due('2025-01-01T23:59:59.000Z', 10);
    expect(due.items.map((recurrence) => recurrence.id)).toEqual([early.id]);
    const listed = await store.list({ status: RecurrenceStatus.Paused, limit: 100 });
    expect(listed.items.map((recurrence) => recurrence.id)).toContain(paused.id);
    expect(listed.items.every((recurrence) => recurrence.status === RecurrenceStatus.Paused)).toBe(true);
  });
});
