import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BulkItemStore } from '../../lib/bulk-corrections/bulk-item-store.js';
import type { BulkItemState, PendingCorrection } from '../../lib/bulk-corrections/model.js';
import { DynamoDbBulkItemStore } from '../../lib/bulk-corrections/store/dynamodb-bulk-item-store.js';
import { InMemoryBulkItemStore } from '../../lib/bulk-corrections/store/in-memory-bulk-item-store.js';
import { DailyCapExceededError } from '../../lib/controls/index.js';
import { ConcurrentModificationError, InvalidTransitionError } from '../../lib/shared/errors.js';
import { createTestTable } from '../support/dynamodb.js';

/**
 * The bulk item store's contract, run against the table (DynamoDB Local) and against memory, so the in-memory store
 * the correction service's unit tests use cannot drift from the one that ships.
 */
interface Subject {
  store: BulkItemStore;
  capTotal(capKey: string, day: string): Promise<number>;
}
const closers: (() => void)[] = [];
afterAll(() => {
  for (const close of closers) close();
});
const implementations: [string, () => Promise<Subject>][] = [
  [
    'DynamoDbBulkItemStore',
    async () => {
      const table = await createTestTable('bulk-item-store');
      closers.push(() => table.client.destroy());
      return {
        store: new DynamoDbBulkItemStore(table.client, table.tableName),
        capTotal: (capKey, day) => table.store.getCapUsage(capKey, day),
      };
    },
  ],
  [
    'InMemoryBulkItemStore',
    async () => {
      const store = new InMemoryBulkItemStore();
      return { store, capTotal: async (capKey, day) => store.controls.capTotal(capKey, day) };
    },
  ],
];

const alice = { id: 'alice', kind: 'user' } as const;
const bob = { id: 'bob', kind: 'user' } as const;
let ids = 0;
const nextId = () => `ITEM-${String(++ids).padStart(4, '0')}`;
const heldOf = (id: string): PendingCorrection => ({
  correctionId: `01J0000000000000000000${String(ids).padStart(4, '0')}`,
  bulkPayoutItemId: id,
  fields: { amount: 500_000 },
  changes: [{ field: 'amountKobo', from: null, fromKnown: false, to: 500_000 }],
  reason: 'at or above the approval threshold',
  status: 'pending_approval',
  requestedBy: alice,
  requestedAt: '2026-03-02T09:00:00.000Z',
});
const stateOf = (id: string, version: number): BulkItemState => ({
  bulkPayoutItemId: id,
  record: {
    accountName: 'Ada Obi',
    accountNumber: '0123456789',
    bankCode: '058',
    bankName: 'GTBank',
    isValid: true,
    reason: null,
    createdAt: '2026-03-01T09:00:00.000Z',
  },
  values: { narration: `v${version}` },
  version,
  updatedAt: `2026-03-02T09:0${version}:00.000Z`,
});
const capOf = (deltaKobo: number) => ({ capKey: 'contract', day: `2026-04-${10 + (ids % 10)}`, deltaKobo });

describe.each(implementations)('the bulk item store contract: %s', (_name, subjectOf) => {
  let subject: Subject;
  beforeAll(async () => {
    subject = await subjectOf();
  });

  it('replaces the state only at the version it was read (0: none yet)', async () => {
    const id = nextId();
    await subject.store.putState(stateOf(id, 1), 0);
    await expect(subject.store.putState(stateOf(id, 1), 0)).rejects.toBeInstanceOf(
      ConcurrentModificationError,
    );
    await subject.store.putState(stateOf(id, 2), 1);
    await expect(subject.store.putState(stateOf(id, 3), 1)).rejects.toBeInstanceOf(
      ConcurrentModificationError,
    );
    expect(await subject.store.get(id)).toEqual(stateOf(id, 2));
  });

  it('holds a correction once, approves it once with its reservation, and refuses one past the cap', async () => {
    const id = nextId();
    const held = heldOf(id);
    expect(await subject.store.putPending(held)).toBe(true);
    expect(await subject.store.putPending(held)).toBe(false);
    const cap = capOf(500_000);
    await expect(
      subject.store.claimApproval(held, bob, '2026-03-02T10:00:00.000Z', { ...cap, limitKobo: 400_000 }),
    ).rejects.toBeInstanceOf(DailyCapExceededError);
    expect(await subject.store.getPending(id, held.correctionId)).toEqual(held);
    await subject.store.claimApproval(held, bob, '2026-03-02T10:00:00.000Z', {
      ...cap,
      limitKobo: 1_000_000,
    });
    expect(await subject.capTotal(cap.capKey, cap.day)).toBe(500_000);
    await expect(subject.store.claimApproval(held, bob, '2026-03-02T10:00:01.000Z')).rejects.toBeInstanceOf(
      InvalidTransitionError,
    );
    expect(await subject.store.getPending(id, held.correctionId)).toMatchObject({
      status: 'approved',
      approvedBy: bob,
    });

    // Given back unsent: waiting again, the reservation returned; only the claim that was made.
    await expect(subject.store.releaseApproval(held, '2026-03-02T10:00:09.000Z', cap)).rejects.toBeInstanceOf(
      ConcurrentModificationError,
    );
    await subject.store.releaseApproval(held, '2026-03-02T10:00:00.000Z', cap);
    expect(await subject.capTotal(cap.capKey, cap.day)).toBe(0);
    const waiting = await subject.store.getPending(id, held.correctionId);
    expect(waiting).toMatchObject({ status: 'pending_approval' });
    expect(waiting?.approvedBy).toBeUndefined();
  });

  it('records a first approval once, and cancels only a correction still waiting', async () => {
    const id = nextId();
    const held = heldOf(id);
    await subject.store.putPending(held);
    const first = { actor: bob, at: '2026-03-02T10:00:00.000Z' };
    expect(await subject.store.recordFirstApproval(held, first)).toEqual({ ...held, firstApproval: first });
    await expect(subject.store.recordFirstApproval(held, first)).rejects.toBeInstanceOf(
      ConcurrentModificationError,
    );
    const cancellation = { cancelledBy: alice, cancelledAt: '2026-03-02T11:00:00.000Z', cancelReason: 'no' };
    expect(await subject.store.cancelHeld(held, cancellation)).toMatchObject({
      status: 'cancelled',
      ...cancellation,
    });
    await expect(subject.store.cancelHeld(held, cancellation)).rejects.toBeInstanceOf(InvalidTransitionError);
    expect(await subject.store.listCorrections({ status: 'cancelled', limit: 100 })).toMatchObject({
      items: expect.arrayContaining([expect.objectContaining({ correctionId: held.correctionId })]),
    });
  });

  it("takes a single correction's claim only when free, ended or past its lease, and gives its reservation back", async () => {
    const id = nextId();
    const cap = capOf(100_000);
    const claim = { claimId: 'c1', at: '2026-03-02T10:00:00.000Z', leaseUntil: '2026-03-02T10:02:00.000Z' };
    expect(await subject.store.claimSingle(id, claim, { ...cap, limitKobo: 1_000_000 })).toBe(true);
    const second = { claimId: 'c2', at: '2026-03-02T10:01:00.000Z', leaseUntil: '2026-03-02T10:03:00.000Z' };
    expect(await subject.store.claimSingle(id, second, undefined)).toBe(false);
    await subject.store.releaseSingle(id, 'c2', '2026-03-02T10:01:30.000Z', cap);
    expect(await subject.capTotal(cap.capKey, cap.day)).toBe(100_000);
    await subject.store.releaseSingle(id, 'c1', '2026-03-02T10:01:30.000Z', cap);
    expect(await subject.capTotal(cap.capKey, cap.day)).toBe(0);
    expect(await subject.store.claimSingle(id, second, undefined)).toBe(true);
    const late = { claimId: 'c3', at: '2026-03-02T10:05:00.000Z', leaseUntil: '2026-03-02T10:07:00.000Z' };
    expect(await subject.store.claimSingle(id, late, undefined)).toBe(true);
  });

  it('keeps the audit of an item oldest first', async () => {
    const id = nextId();
    const entry = (at: string) => ({
      bulkPayoutItemId: id,
      at,
      actor: alice,
      changes: [],
      outcome: 'corrected' as const,
    });
    await subject.store.appendAudit(entry('2026-03-02T10:00:02.000Z'));
    await subject.store.appendAudit(entry('2026-03-02T10:00:01.000Z'));
    expect((await subject.store.audit(id)).map((audit) => audit.at)).toEqual([
      '2026-03-02T10:00:01.000Z',
      '2026-03-02T10:00:02.000Z',
    ]);
  });
});
