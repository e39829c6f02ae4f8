import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CorrectionJob, type JobItem, JobItemStatus } from '../../lib/bulk-corrections/job-model.js';
import type { CorrectionJobStore } from '../../lib/bulk-corrections/job-store.js';
import { DynamoDbCorrectionJobStore } from '../../lib/bulk-corrections/store/dynamodb-job-store.js';
import { InMemoryCorrectionJobStore } from '../../lib/bulk-corrections/store/in-memory-job-store.js';
import { DailyCapExceededError } from '../../lib/controls/index.js';
import { InvalidCursorError } from '../../lib/shared/errors.js';
import { ulid } from '../../lib/shared/ids.js';
import { createTestTable } from '../support/dynamodb.js';

/**
 * The correction job store's contract, run against the table (DynamoDB Local) and against memory, so the in-memory
 * store the job service's unit tests use cannot drift from the one that ships.
 */
interface Subject {
  store: CorrectionJobStore;
  capTotal(capKey: string, day: string): Promise<number>;
}
const closers: (() => void)[] = [];
afterAll(() => {
  for (const close of closers) close();
});
const implementations: [string, () => Promise<Subject>][] = [
  [
    'DynamoDbCorrectionJobStore',
    async () => {
      const table = await createTestTable('job-store');
      closers.push(() => table.client.destroy());
      return {
        store: new DynamoDbCorrectionJobStore(table.client, table.tableName),
        capTotal: (capKey, day) => table.store.getCapUsage(capKey, day),
      };
    },
  ],
  [
    'InMemoryCorrectionJobStore',
    async () => {
      const store = new InMemoryCorrectionJobStore();
      return { store, capTotal: async (capKey, day) => store.controls.capTotal(capKey, day) };
    },
  ],
];

const alice = { id: 'alice', kind: 'user' } as const;
let minute = 0;
function jobOf(rows: number): { job: CorrectionJob; items: JobItem[] } {
  const now = new Date(Date.UTC(2026, 2, 2, 9, ++minute));
  const jobId = ulid(now);
  const at = now.toISOString();
  const items = Array.from({ length: rows }, (_, index) => ({
    jobId,
    index,
    bulkPayoutItemId: `ITEM-${index}`,
    fields: { narration: `row ${index}` },
    correctionId: ulid(now),
    status: JobItemStatus.Queued,
    updatedAt: at,
  }));
  return { job: { jobId, total: rows, source: 'json', requestedBy: alice, createdAt: at }, items };
}

describe.each(implementations)('the correction job store contract: %s', (_name, subjectOf) => {
  let subject: Subject;
  beforeAll(async () => {
    subject = await subjectOf();
  });

  it('stores a job with its rows once per idempotency key, answering the holder to another', async () => {
    const first = jobOf(2);
    const keyed = { idempotencyKey: `key-${minute}`, requestFingerprint: 'fp-1' };
    expect(await subject.store.create(first.job, first.items, undefined, keyed)).toEqual({ created: true });
    const second = jobOf(1);
    expect(await subject.store.create(second.job, second.items, undefined, keyed)).toEqual({
      created: false,
      ownerId: first.job.jobId,
    });
    expect(await subject.store.keyedJob(keyed.idempotencyKey)).toEqual({
      jobId: first.job.jobId,
      requestFingerprint: 'fp-1',
    });
    expect(await subject.store.get(second.job.jobId)).toBeUndefined();
    expect(await subject.store.get(first.job.jobId)).toEqual(first.job);
    expect(await subject.store.allItems(first.job.jobId)).toEqual(first.items);
  });

  it('claims a row once, with its reservation, and moves it only from the status it was read in', async () => {
    const { job, items } = jobOf(2);
    await subject.store.create(job, items);
    const cap = { capKey: 'contract', day: `2026-05-${10 + minute}`, deltaKobo: 100_000, limitKobo: 150_000 };
    expect(await subject.store.claim(items[0] as JobItem, job.createdAt, cap)).toBe(true);
    expect(await subject.store.claim(items[0] as JobItem, job.createdAt, cap)).toBe(false);
    await expect(subject.store.claim(items[1] as JobItem, job.createdAt, cap)).rejects.toBeInstanceOf(
      DailyCapExceededError,
    );
    expect(await subject.capTotal(cap.capKey, cap.day)).toBe(100_000);
    expect((await subject.store.item(job.jobId, 1))?.status).toBe(JobItemStatus.Queued);
    const row = items[0] as JobItem;
    expect(
      await subject.store.transition(row, JobItemStatus.Queued, JobItemStatus.Corrected, job.createdAt),
    ).toBe(false);
    expect(
      await subject.store.transition(row, JobItemStatus.Sending, JobItemStatus.Corrected, job.createdAt, {
        isValid: true,
      }),
    ).toBe(true);
    expect(await subject.store.item(job.jobId, 0)).toMatchObject({
      status: 'corrected',
      result: { isValid: true },
    });
  });

  it('pages rows in row order and refuses a cursor of another job', async () => {
    const { job, items } = jobOf(3);
    await subject.store.create(job, items);
    const first = await subject.store.items(job.jobId, { limit: 2 });
    expect(first.items.map((item) => item.index)).toEqual([0, 1]);
    const second = await subject.store.items(job.jobId, { limit: 2, cursor: first.nextCursor });
    expect(second.items.map((item) => item.index)).toEqual([2]);
    const other = jobOf(1);
    await subject.store.create(other.job, other.items);
    await expect(
      subject.store.items(other.job.jobId, { limit: 2, cursor: first.nextCursor }),
    ).rejects.toBeInstanceOf(InvalidCursorError);
  });

  it('keeps work for the hand-over due until the queue took it, one attempt more each time it failed', async () => {
    const { job, items } = jobOf(1);
    const work = [
      { kind: 'bulk-correction' as const, jobId: job.jobId, bulkPayoutItemId: 'ITEM-0', indexes: [0] },
    ];
    await subject.store.create(job, items, { work, dueAt: '2026-03-01T00:00:00.000Z' });
    const [due] = await subject.store.dueForEnqueue('2026-03-01T00:00:00.000Z', 100);
    expect(due).toEqual({ jobId: job.jobId, work, attempts: 0 });
    await subject.store.retryEnqueueAt(due as NonNullable<typeof due>, '2026-03-01T00:05:00.000Z');
    expect(await subject.store.dueForEnqueue('2026-03-01T00:01:00.000Z', 100)).toEqual([]);
    expect(await subject.store.dueForEnqueue('2026-03-01T00:05:00.000Z', 100)).toEqual([
      { jobId: job.jobId, work, attempts: 1 },
    ]);
    await subject.store.markEnqueued(job.jobId);
    expect(await subject.store.dueForEnqueue('2026-03-01T00:05:00.000Z', 100)).toEqual([]);
  });
});
