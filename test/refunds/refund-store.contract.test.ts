import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DailyCapExceededError, PayoutsPausedError } from '../../lib/controls/index.js';
import { RefundExceedsAmountPaidError } from '../../lib/refunds/errors.js';
import { type Refund, type RefundAuditEvent, RefundStatus } from '../../lib/refunds/model.js';
import type { RefundStore } from '../../lib/refunds/refund-store.js';
import { DynamoDbRefundStore } from '../../lib/refunds/store/dynamodb-refund-store.js';
import { InMemoryRefundStore } from '../../lib/refunds/store/in-memory-refund-store.js';
import { ConcurrentModificationError, InvalidCursorError } from '../../lib/shared/errors.js';
import { createTestTable } from '../support/dynamodb.js';

/**
 * The refund store's contract, run against the table (DynamoDB Local) and against memory, so the in-memory store the
 * service's unit tests use cannot drift from the one that ships.
 */
interface Subject {
  store: RefundStore;
  pause(): Promise<void>;
  capTotal(capKey: string, day: string): Promise<number>;
}

const closers: (() => void)[] = [];
afterAll(() => {
  for (const close of closers) close();
});

const implementations: [string, () => Promise<Subject>][] = [
  [
    'DynamoDbRefundStore',
    async () => {
      const table = await createTestTable('refund-store');
      closers.push(() => table.client.destroy());
      return {
        store: new DynamoDbRefundStore(table.client, table.tableName),
        pause: () => table.store.setControls({ paused: true, reason: 'contract' }),
        capTotal: (capKey, day) => table.store.getCapUsage(capKey, day),
      };
    },
  ],
  [
    'InMemoryRefundStore',
    async () => {
      const store = new InMemoryRefundStore();
      return {
        store,
        pause: async () => store.controls.pause(),
        capTotal: async (capKey, day) => store.controls.capTotal(capKey, day),
      };
    },
  ],
];

const alice = { id: 'alice', kind: 'user' } as const;
let ids = 0;
function refundOf(overrides: Partial<Refund> = {}): Refund {
  ids += 1;
  return {
    id: `REFUND${String(ids).padStart(6, '0')}`,
    idempotencyKey: `rf-${ids}`,
    requestFingerprint: 'fp',
    transactionId: `TX-${ids}`,
    amountKobo: 1_000,
    customerNote: 'sorry',
    merchantNote: 'double charge',
    status: RefundStatus.Requested,
    version: 1,
    requestedBy: alice,
    amountPaidKobo: 5_000,
    countsInTotal: true,
    createdAt: '2026-03-02T08:00:00.000Z',
    updatedAt: '2026-03-02T08:00:00.000Z',
    ...overrides,
  };
}
const auditOf = (refund: Refund, from?: RefundStatus): RefundAuditEvent => ({
  refundId: refund.id,
  sequence: refund.version,
  at: refund.updatedAt,
  actor: alice,
  ...(from && { from }),
  to: refund.status,
  reason: 'contract',
});
const next = (refund: Refund, status: RefundStatus, extra: Partial<Refund> = {}): Refund => ({
  ...refund,
  status,
  version: refund.version + 1,
  updatedAt: '2026-03-02T08:01:00.000Z',
  ...extra,
});

describe.each(implementations)('the refund store contract: %s', (_name, subjectOf) => {
  let subject: Subject;
  beforeAll(async () => {
    subject = await subjectOf();
  });

  it('creates a refund once per idempotency key and returns the holder of the key to a second create', async () => {
    const refund = refundOf();
    const first = await subject.store.create(refund, auditOf(refund));
    expect(first).toEqual({ created: true, refund });
    const again = await subject.store.create({ ...refundOf(), idempotencyKey: refund.idempotencyKey });
    expect(again).toEqual({ created: false, existing: refund });
    expect(await subject.store.findByIdempotencyKey(refund.idempotencyKey)).toEqual(refund);
    expect(await subject.store.findByIdempotencyKey('rf-never-used')).toBeUndefined();
    expect(await subject.store.getAudit(refund.id)).toEqual([auditOf(refund)]);
    expect(await subject.store.refundedTotal(refund.transactionId)).toBe(1_000);
  });

  it('refuses a create that would take the refunded total past what was paid, writing nothing', async () => {
    const first = refundOf({ amountKobo: 4_000 });
    await subject.store.create(first, auditOf(first));
    const second = refundOf({ transactionId: first.transactionId, amountKobo: 2_000 });
    const refused = subject.store.create(second, auditOf(second));
    await expect(refused).rejects.toBeInstanceOf(RefundExceedsAmountPaidError);
    expect(await subject.store.get(second.id)).toBeUndefined();
    expect(await subject.store.findByIdempotencyKey(second.idempotencyKey)).toBeUndefined();
    expect(await subject.store.refundedTotal(first.transactionId)).toBe(4_000);
    const uncounted = refundOf({
      transactionId: first.transactionId,
      amountKobo: 2_000,
      countsInTotal: false,
    });
    expect((await subject.store.create(uncounted)).created).toBe(true);
    expect(await subject.store.refundedTotal(first.transactionId)).toBe(4_000);
  });

  it('writes a change only over the version it read, with an audit event of a new sequence', async () => {
    const refund = refundOf();
    await subject.store.create(refund, auditOf(refund));
    const sending = next(refund, RefundStatus.Sending);
    expect(await subject.store.update(refund, sending, { audit: auditOf(sending, refund.status) })).toEqual(
      sending,
    );
    const stale = subject.store.update(refund, next(refund, RefundStatus.Cancelled));
    await expect(stale).rejects.toBeInstanceOf(ConcurrentModificationError);
    const reusedSequence = subject.store.update(sending, next(sending, RefundStatus.Pending), {
      audit: auditOf(sending, refund.status),
    });
    await expect(reusedSequence).rejects.toBeInstanceOf(ConcurrentModificationError);
    expect(await subject.store.get(refund.id)).toEqual(sending);
    expect((await subject.store.getAudit(refund.id)).map((event) => event.sequence)).toEqual([1, 2]);
  });

  it('reserves and releases the refunded total and the daily cap with a change, and refuses one past either', async () => {
    const cap = { capKey: 'contract-cap', day: `2026-03-${String(10 + (ids % 10))}` };
    const refund = refundOf({ countsInTotal: false });
    await subject.store.create(refund);
    const claimed = next(refund, RefundStatus.Sending, { countsInTotal: true });
    await subject.store.update(refund, claimed, {
      cap: { ...cap, deltaKobo: 1_000, limitKobo: 1_500 },
      totalDeltaKobo: 1_000,
    });
    expect(await subject.capTotal(cap.capKey, cap.day)).toBe(1_000);
    expect(await subject.store.refundedTotal(refund.transactionId)).toBe(1_000);

    const other = refundOf({ countsInTotal: false });
    await subject.store.create(other);
    const pastCap = subject.store.update(other, next(other, RefundStatus.Sending), {
      cap: { ...cap, deltaKobo: 1_000, limitKobo: 1_500 },
      totalDeltaKobo: 1_000,
    });
    await expect(pastCap).rejects.toBeInstanceOf(DailyCapExceededError);
    expect(await subject.store.get(other.id)).toEqual(other);
    expect(await subject.store.refundedTotal(other.transactionId)).toBe(0);

    const pastPaid = subject.store.update(claimed, next(claimed, RefundStatus.Sending), {
      totalDeltaKobo: 4_500,
    });
    await expect(pastPaid).rejects.toBeInstanceOf(RefundExceedsAmountPaidError);

    const given = next(claimed, RefundStatus.NotSent, { countsInTotal: false });
    await subject.store.update(claimed, given, {
      cap: { ...cap, deltaKobo: -1_000 },
      totalDeltaKobo: -1_000,
    });
    expect(await subject.capTotal(cap.capKey, cap.day)).toBe(0);
    expect(await subject.store.refundedTotal(refund.transactionId)).toBe(0);
  });

  it('lists refunds newest first, by status, page by page, and refuses a cursor it did not issue', async () => {
    const at = (minute: number) => `2026-04-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
    const listed = [1, 2, 3].map((minute) =>
      refundOf({ status: RefundStatus.Rejected, createdAt: at(minute), updatedAt: at(minute) }),
    );
    for (const refund of listed) await subject.store.create(refund);
    const first = await subject.store.list({ status: RefundStatus.Rejected, limit: 2 });
    expect(first.items.map((refund) => refund.id)).toEqual([listed[2]?.id, listed[1]?.id]);
    expect(first.nextCursor).toBeDefined();
    const second = await subject.store.list({
      status: RefundStatus.Rejected,
      limit: 2,
      cursor: first.nextCursor,
    });
    expect(second.items.map((refund) => refund.id)).toEqual([listed[0]?.id]);
    const everything = await subject.store.list({ limit: 100 });
    expect(everything.items[0]?.id).toBe(listed[2]?.id);
    await expect(subject.store.list({ limit: 2, cursor: 'not-a-cursor' })).rejects.toBeInstanceOf(
      InvalidCursorError,
    );
  });

  it('holds the refunds the sweeper must still look at in its queue, earliest first, until they settle', async () => {
    const early = refundOf({ updatedAt: '2026-01-01T00:00:00.000Z' });
    const later = refundOf({ updatedAt: '2026-01-01T00:00:30.000Z' });
    const settled = refundOf({ status: RefundStatus.Pending, updatedAt: '2026-01-01T00:00:00.000Z' });
    for (const refund of [later, settled, early]) await subject.store.create(refund);
    const ids = (refunds: Refund[]) => refunds.map((refund) => refund.id);
    expect(ids(await subject.store.due('2026-01-01T00:01:00.000Z', 10))).toEqual([early.id]);
    expect(ids(await subject.store.due('2026-01-01T00:01:30.000Z', 10))).toEqual([early.id, later.id]);
    expect(ids(await subject.store.due('2026-01-01T00:01:30.000Z', 1))).toEqual([early.id]);
  });

  it('refuses a claim that requires payouts not paused while they are, writing nothing', async () => {
    const refund = refundOf();
    await subject.store.create(refund);
    await subject.pause();
    const claim = subject.store.update(refund, next(refund, RefundStatus.Sending), {
      requireNotPaused: true,
    });
    await expect(claim).rejects.toBeInstanceOf(PayoutsPausedError);
    expect(await subject.store.get(refund.id)).toEqual(refund);
  });
});
