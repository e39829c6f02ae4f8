import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorrectionJobService } from '../../lib/bulk-corrections/correction-jobs.js';
import { BulkCorrectionService } from '../../lib/bulk-corrections/correction-service.js';
import { CorrectionJobNotEnqueuedError } from '../../lib/bulk-corrections/job-errors.js';
import {
  type CorrectionWork,
  CorrectionWorkSchema,
  type QueueMessage,
} from '../../lib/bulk-corrections/job-queue.js';
import { InMemoryBulkItemStore } from '../../lib/bulk-corrections/store/in-memory-bulk-item-store.js';
import { InMemoryCorrectionJobStore } from '../../lib/bulk-corrections/store/in-memory-job-store.js';
import { defaultEngineConfig, type EngineConfig } from '../../lib/payouts/config.js';
import { InMemoryControls } from '../../lib/payouts/store/in-memory-controls.js';
import { ProviderClient, StaticCredentialsSource } from '../../lib/provider/index.js';
import { type Sandbox, startSandbox } from '../../lib/sandbox/index.js';
import { ManualClock } from '../../lib/shared/clock.js';
import { IdempotencyConflictError, ValidationError } from '../../lib/shared/errors.js';

/**
 * The correction job service against its store's port in memory (InMemoryCorrectionJobStore), with the correction
 * service on InMemoryBulkItemStore and the provider sandbox: the batch's admission, idempotent submission, each row
 * sent once however often its message is delivered, a held row that takes its outcome once approved, a paused row,
 * and work the queue refused left for the hand-over. The table's own rules are tested against DynamoDB Local
 * (correction-jobs.test.ts and the other files of this folder).
 */
const PATCH_PATH = '/payout/bulk/item';
const alice = { id: 'alice', kind: 'user' } as const;
const bob = { id: 'bob', kind: 'user' } as const;
let sandbox: Sandbox;
let client: ProviderClient;
let validIds: string[] = [];

beforeAll(async () => {
  sandbox = await startSandbox();
  client = new ProviderClient({
    baseUrl: sandbox.url,
    credentials: new StaticCredentialsSource({ token: sandbox.token, pin: sandbox.pin }),
    retry: { baseDelayMs: 0, maxDelayMs: 0 },
  });
  validIds = sandbox
    .fixtures()
    .bulkPayoutItems.filter((item) => item.isValid)
    .map((item) => item.id);
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});

/** A queue that keeps what it was sent (or refuses it while `refusing`). */
function queueOf() {
  const sent: QueueMessage[] = [];
  const queue = {
    refusing: false,
    sent,
    async send(messages: readonly QueueMessage[]) {
      if (queue.refusing) throw new Error('the queue refused the batch');
      sent.push(...messages);
    },
    work(): CorrectionWork[] {
      return sent.map((message) => CorrectionWorkSchema.parse(JSON.parse(message.body)));
    },
  };
  return queue;
}

function fresh(limits: Partial<EngineConfig> = {}) {
  const clock = new ManualClock('2026-03-02T08:00:00.000Z');
  const controls = new InMemoryControls();
  const paused = { paused: false };
  const store = new InMemoryCorrectionJobStore(controls);
  const queue = queueOf();
  const engineLimits = { ...defaultEngineConfig, ...limits };
  let jobs: CorrectionJobService | undefined;
  const corrections = new BulkCorrectionService({
    store: new InMemoryBulkItemStore(controls),
    provider: client,
    limits: engineLimits,
    controls: async () => paused,
    clock,
    heldJobRows: {
      recordHeldOutcome: (job, result) => (jobs as CorrectionJobService).recordHeldOutcome(job, result),
      recordHeldCancellation: (job, cancelled) =>
        (jobs as CorrectionJobService).recordHeldCancellation(job, cancelled),
    },
  });
  jobs = new CorrectionJobService({ store, corrections, limits: engineLimits, queue, clock });
  const workAll = async () => {
    for (const work of queue.work()) await jobs.work(work, Number.POSITIVE_INFINITY);
  };
  return { clock, store, queue, paused, corrections, jobs, workAll };
}
const patches = () => sandbox.stats().requests[PATCH_PATH] ?? 0;

describe('submitting a job', () => {
  it('refuses the whole batch naming each bad row, storing and queueing nothing', async () => {
    const { jobs, queue } = fresh({ maxInstructionKobo: 1_000_000 });
    const submitted = jobs.submit(
      [
        { bulkPayoutItemId: validIds[0], narration: 'fine' },
        { bulkPayoutItemId: validIds[1], amount: 1_000_001 },
        { bulkPayoutItemId: validIds[2] },
      ],
      'json',
      alice,
    );
    await expect(submitted).rejects.toBeInstanceOf(ValidationError);
    await expect(submitted).rejects.toMatchObject({
      issues: expect.arrayContaining([expect.objectContaining({ path: 'corrections[1].amount' })]),
    });
    expect(queue.sent).toEqual([]);
    expect((await jobs.list({ limit: 10 })).items).toEqual([]);
  });

  it('answers the job a key created to a retry of the same request, and refuses the key with another', async () => {
    const { jobs, queue } = fresh();
    const rows = [{ bulkPayoutItemId: validIds[0], narration: 'June' }];
    const first = await jobs.submit(rows, 'json', alice, 'job-key-1');
    const again = await jobs.submit(rows, 'json', alice, 'job-key-1');
    expect(again).toMatchObject({ replayed: true, job: { jobId: first.job.jobId } });
    await expect(
      jobs.submit([{ bulkPayoutItemId: validIds[0], narration: 'July' }], 'json', alice, 'job-key-1'),
    ).rejects.toBeInstanceOf(IdempotencyConflictError);
    expect(queue.sent).toHaveLength(1);
  });

  it('keeps work the queue refused due for the hand-over, and hands it over no more once taken', async () => {
    const { jobs, store, queue, clock } = fresh();
    queue.refusing = true;
    const submitted = jobs.submit([{ bulkPayoutItemId: validIds[0], narration: 'later' }], 'json', alice);
    await expect(submitted).rejects.toBeInstanceOf(CorrectionJobNotEnqueuedError);
    clock.advance(60 * 60_000);
    const [pending] = await store.dueForEnqueue(clock.now().toISOString(), 10);
    expect(pending?.work).toHaveLength(1);
    await store.markEnqueued(pending?.jobId ?? '');
    expect(await store.dueForEnqueue(clock.now().toISOString(), 10)).toEqual([]);
  });
});

describe('working a job', () => {
  it('sends each row once however often its message is delivered, and counts the results', async () => {
    const { jobs, queue, workAll } = fresh();
    const before = patches();
    const { job } = await jobs.submit(
      [
        { bulkPayoutItemId: validIds[0], narration: 'row 1' },
        { bulkPayoutItemId: validIds[1], narration: 'row 2' },
      ],
      'json',
      alice,
    );
    await workAll();
    await workAll();
    expect(patches()).toBe(before + 2);
    expect(queue.sent).toHaveLength(2);
    expect(await jobs.get(job.jobId)).toMatchObject({
      status: 'completed',
      counts: { corrected: 2 },
      progress: { done: 2, total: 2, percent: 100 },
    });
  });

  it('holds a row at the threshold for a second person; the row takes the outcome once approved', async () => {
    const { jobs, corrections, workAll } = fresh({ approvalThresholdKobo: 500_000 });
    const { job } = await jobs.submit([{ bulkPayoutItemId: validIds[2], amount: 500_000 }], 'json', alice);
    await workAll();
    const [row] = await jobs.allItems(job.jobId);
    expect(row?.status).toBe('pending_approval');
    expect((await jobs.get(job.jobId)).status).toBe('waiting_for_approval');
    const before = patches();
    await corrections.approve(row?.bulkPayoutItemId ?? '', row?.correctionId ?? '', bob);
    expect(patches()).toBe(before + 1);
    expect((await jobs.allItems(job.jobId))[0]?.status).toBe('corrected');
  });

  it('ends a row paused, nothing sent, when its turn comes while payouts are paused', async () => {
    const { jobs, paused, workAll } = fresh();
    const { job } = await jobs.submit([{ bulkPayoutItemId: validIds[3], amount: 100_000 }], 'json', alice);
    paused.paused = true;
    const before = patches();
    await workAll();
    expect(patches()).toBe(before);
    expect((await jobs.allItems(job.jobId))[0]).toMatchObject({
      status: 'paused',
      result: { failure: { code: 'PAYOUTS_PAUSED' } },
    });
  });
});
