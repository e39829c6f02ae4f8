import { type CapChange, InMemoryControls } from '../../payouts/index.js';
import { InvalidCursorError } from '../../shared/errors.js';
import { newestFirst, pageOf } from '../../shared/in-memory-pages.js';
import type { CursorPage } from '../../shared/paging.js';
import { type CorrectionJob, type JobItem, type JobItemResult, JobItemStatus } from '../job-model.js';
import type { CorrectionWork } from '../job-queue.js';
import type { CorrectionJobStore, PendingEnqueue } from '../job-store.js';

interface StoredJob {
  readonly job: CorrectionJob;
  readonly requestFingerprint?: string;
  readonly enqueue?: {
    readonly work: readonly CorrectionWork[];
    readonly attempts: number;
    readonly dueAt: string;
  };
}

/**
 * Correction jobs in memory, with the table store's rules (`DynamoDbCorrectionJobStore`): a job is written once, with
 * its idempotency key when it has one (another job holding the key answers its id, nothing written); a row moves only
 * from the status it was read in (false otherwise); a row's claim commits with its reservation on the daily cap
 * (`controls`) or not at all; a job's work stays due for the hand-over until the queue took it. For unit tests of
 * the job service; the table's own suites test the store (test/bulk-corrections/).
 */
export class InMemoryCorrectionJobStore implements CorrectionJobStore {
  readonly #jobs = new Map<string, StoredJob>();
  readonly #rows = new Map<string, JobItem[]>();
  readonly #keys = new Map<string, string>();

  constructor(readonly controls: InMemoryControls = new InMemoryControls()) {}

  async create(
    job: CorrectionJob,
    items: readonly JobItem[],
    pending?: { work: readonly CorrectionWork[]; dueAt: string },
    keyed?: { readonly idempotencyKey: string; readonly requestFingerprint: string },
  ): Promise<{ readonly created: true } | { readonly created: false; readonly ownerId: string }> {
    // The rows first, as in the table: a job whose key another holds leaves them behind, unreferenced.
    this.#rows.set(job.jobId, structuredClone([...items]));
    const owner = keyed && this.#keys.get(keyed.idempotencyKey);
    if (owner !== undefined) return { created: false, ownerId: owner };
    if (this.#jobs.has(job.jobId)) throw new Error(`correction job ${job.jobId} exists already`);
    this.#jobs.set(job.jobId, {
      job: structuredClone(job),
      ...(keyed && { requestFingerprint: keyed.requestFingerprint }),
      ...(pending && { enqueue: { work: structuredClone(pending.work), attempts: 0, dueAt: pending.dueAt } }),
    });
    if (keyed) this.#keys.set(keyed.idempotencyKey, job.jobId);
    return { created: true };
  }

  async keyedJob(
    idempotencyKey: string,
  ): Promise<{ readonly jobId: string; readonly requestFingerprint?: string } | undefined> {
    const jobId = this.#keys.get(idempotencyKey);
    if (jobId === undefined) return undefined;
    const requestFingerprint = this.#jobs.get(jobId)?.requestFingerprint;
    return { jobId, ...(requestFingerprint !== undefined && { requestFingerprint }) };
  }

  async markEnqueued(jobId: string): Promise<void> {
    const stored = this.#jobs.get(jobId);
    if (!stored) throw new Error(`no correction job ${jobId}`);
    const { enqueue: _taken, ...rest } = stored;
    this.#jobs.set(jobId, rest);
  }

  async retryEnqueueAt(pending: PendingEnqueue, dueAt: string): Promise<void> {
    const stored = this.#jobs.get(pending.jobId);
    if (!stored?.enqueue) throw new Error(`correction job ${pending.jobId} has no work to hand over`);
    this.#jobs.set(pending.jobId, {
      ...stored,
      enqueue: { ...stored.enqueue, attempts: pending.attempts + 1, dueAt },
    });
  }

  async dueForEnqueue(dueBy: string, limit: number): Promise<PendingEnqueue[]> {
    const due = [...this.#jobs.values()].flatMap(({ job, enqueue }) =>
      enqueue ? [{ key: `${enqueue.dueAt}#${job.jobId}`, pending: { jobId: job.jobId, ...enqueue } }] : [],
    );
    return due
      .filter(({ key }) => key <= `${dueBy}#\uffff`)
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .slice(0, limit)
      .map(({ pending }) =>
        structuredClone({ jobId: pending.jobId, work: pending.work, attempts: pending.attempts }),
      );
  }

  async get(jobId: string): Promise<CorrectionJob | undefined> {
    const stored = this.#jobs.get(jobId);
    return stored && structuredClone(stored.job);
  }

  async list(query: { limit: number; cursor?: string }): Promise<CursorPage<CorrectionJob>> {
    const jobs = [...this.#jobs.values()].map((stored) => stored.job);
    const ordered = newestFirst(
      jobs,
      (job) => job.createdAt,
      (job) => job.jobId,
    );
    return structuredClone(pageOf(ordered, query));
  }

  async item(jobId: string, index: number): Promise<JobItem | undefined> {
    const row = this.#rows.get(jobId)?.find((candidate) => candidate.index === index);
    return row && structuredClone(row);
  }

  async items(jobId: string, query: { limit: number; cursor?: string }): Promise<CursorPage<JobItem>> {
    if (query.cursor !== undefined && !query.cursor.startsWith(`${jobId}:`)) {
      throw new InvalidCursorError('not a cursor of this job');
    }
    const rows = [...(this.#rows.get(jobId) ?? [])].sort((a, b) => a.index - b.index);
    const offset = query.cursor === undefined ? undefined : `offset:${query.cursor.slice(jobId.length + 1)}`;
    const page = pageOf(rows, { limit: query.limit, ...(offset !== undefined && { cursor: offset }) });
    const next = page.nextCursor?.replace(/^offset:/, `${jobId}:`);
    return structuredClone({ items: page.items, ...(next !== undefined && { nextCursor: next }) });
  }

  async allItems(jobId: string): Promise<JobItem[]> {
    return structuredClone([...(this.#rows.get(jobId) ?? [])].sort((a, b) => a.index - b.index));
  }

  async claim(
    item: Pick<JobItem, 'jobId' | 'index'>,
    at: string,
    cap: CapChange | undefined,
  ): Promise<boolean> {
    const row = this.#row(item);
    if (row?.status !== JobItemStatus.Queued) return false;
    if (cap) this.controls.checkCap(cap);
    this.#setRow({ ...row, status: JobItemStatus.Sending, updatedAt: at });
    if (cap) this.controls.applyCap(cap);
    return true;
  }

  async transition(
    item: Pick<JobItem, 'jobId' | 'index'>,
    from: JobItemStatus,
    to: JobItemStatus,
    at: string,
    result?: JobItemResult,
  ): Promise<boolean> {
    const row = this.#row(item);
    if (row?.status !== from) return false;
    this.#setRow({ ...row, status: to, updatedAt: at, ...(result && { result }) });
    return true;
  }

  #row(item: Pick<JobItem, 'jobId' | 'index'>): JobItem | undefined {
    return this.#rows.get(item.jobId)?.find((candidate) => candidate.index === item.index);
  }

  #setRow(row: JobItem): void {
    const rows = this.#rows.get(row.jobId) ?? [];
    this.#rows.set(
      row.jobId,
      rows.map((candidate) => (candidate.index === row.index ? structuredClone(row) : candidate)),
    );
  }
}
