import type { GateLimits, Principal } from '../controls/index.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { IdempotencyConflictError, NotFoundError } from '../shared/errors.js';
import { fingerprint, ulid } from '../shared/ids.js';
import { type Logger, silentLogger } from '../shared/logger.js';
import type { CursorPage } from '../shared/paging.js';
import { type RowNaming, validateBatch } from './batch-validation.js';
import type { BulkCorrectionService } from './correction-service.js';
import { CorrectionJobNotEnqueuedError, CorrectionJobsNotConfiguredError } from './job-errors.js';
import {
  type CorrectionJob,
  type JobItem,
  type JobItemResult,
  JobItemStatus,
  type JobView,
} from './job-model.js';
import { type CorrectionWork, type CorrectionWorkQueue, correctionMessageOf } from './job-queue.js';
import { jobViewOf, rowOutcomeOf, workOf } from './job-rows.js';
import type { CorrectionJobStore } from './job-store.js';
import type { CorrectionResult, HeldCancellation, PendingCorrection } from './model.js';
import { nextEnqueueAt } from './pending-enqueue.js';
import { CorrectionFieldsSchema } from './schemas.js';

export interface CorrectionJobServiceOptions {
  readonly store: CorrectionJobStore;
  readonly corrections: BulkCorrectionService;
  /** The engine's limits: a row above the per-payout maximum refuses the whole batch. */
  readonly limits: GateLimits;
  /** The submission queue; without it no job is accepted (503). */
  readonly queue: CorrectionWorkQueue | undefined;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

const WORKER_STOPPED = {
  code: 'WORKER_STOPPED',
  message:
    "a worker claimed this row and stopped before recording the provider's answer: the correction may have been applied; check the item before correcting it again",
} as const;

/**
 * Bulk corrections as jobs. `submit` validates every row (zod, then the gate's maximum) before anything is
 * stored: one bad row refuses the batch with a 400 naming each bad row and field. A valid batch is stored (its
 * rows 25 per write, then the job) and handed to the queue workers, one message per bulk payout item with that
 * item's rows in order; the caller gets the job at once. `work` is what a worker does with one message: each
 * row passes the gate, is held for a second person or claimed (`queued -> sending`) and sent once.
 *
 * @example
 * const { job } = await jobs.submit(entries, 'json', { id: 'alice', kind: 'user' }, 'batch-2026-06');
 * const view = await jobs.get(job.jobId); // view.counts, view.progress
 */
export class CorrectionJobService {
  readonly #store: CorrectionJobStore;
  readonly #corrections: BulkCorrectionService;
  readonly #limits: GateLimits;
  readonly #queue: CorrectionWorkQueue | undefined;
  readonly #clock: Clock;
  readonly #logger: Logger;

  constructor(options: CorrectionJobServiceOptions) {
    this.#store = options.store;
    this.#corrections = options.corrections;
    this.#limits = options.limits;
    this.#queue = options.queue;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
  }

  /**
   * Accepts a batch as a job: validated whole, stored, handed to the workers. Nothing reaches the provider here.
   *
   * @throws ValidationError naming each bad row and field (nothing stored)
   * @throws CorrectionJobsNotConfiguredError without a queue (nothing stored)
   * @throws CorrectionJobNotEnqueuedError when the job is stored but the queue refused some of its work
   */
  async submit(
    entries: readonly unknown[],
    naming: RowNaming,
    actor: Principal,
    idempotencyKey?: string,
  ): Promise<{ readonly job: JobView; readonly replayed: boolean }> {
    const rows = validateBatch(this.#limits, entries, naming, actor);
    if (!this.#queue) throw new CorrectionJobsNotConfiguredError();
    // With a key, a retry of the same request answers the job the first one created (its current view), and
    // the key with another request is refused: the same rows are never queued twice.
    const keyed =
      idempotencyKey === undefined
        ? undefined
        : { idempotencyKey, requestFingerprint: fingerprint({ naming, rows }) };
    const replayed = keyed && (await this.#keyedJob(keyed));
    if (replayed) return { job: replayed, replayed: true };
    const now = this.#clock.now();
    const at = now.toISOString();
    const jobId = ulid(now);
    const items: JobItem[] = rows.map(({ bulkPayoutItemId, ...fields }, index) => ({
      jobId,
      index,
      bulkPayoutItemId,
      fields,
      correctionId: ulid(now),
      status: JobItemStatus.Queued,
      updatedAt: at,
    }));
    const job: CorrectionJob = {
      jobId,
      total: items.length,
      source: naming,
      requestedBy: actor,
      createdAt: at,
    };
    // Stored with its work: when the queue refuses some of it below, the sweeper hands it over later.
    const stored = await this.#store.create(
      job,
      items,
      { work: workOf(jobId, items), dueAt: nextEnqueueAt(now, 0) },
      keyed,
    );
    if (!stored.created && keyed) {
      // A concurrent request with the same key stored its job first: that one is the answer.
      const winner = await this.#keyedJob(keyed);
      if (winner) return { job: winner, replayed: true };
    }
    this.#logger.info('correction job accepted', { jobId, rows: items.length });
    await this.#enqueue(jobId, items);
    return { job: jobViewOf(job, items), replayed: false };
  }

  /**
   * Hands the job's rows that are still queued to the workers again (after the queue refused them, or after
   * their messages went to the dead-letter queue). Safe at any time: a row already claimed or done is skipped.
   */
  async requeue(jobId: string): Promise<JobView> {
    const job = await this.#store.get(jobId);
    if (!job) throw new NotFoundError('correction job', jobId);
    const items = await this.#store.allItems(jobId);
    await this.#enqueue(
      jobId,
      items.filter((item) => item.status === JobItemStatus.Queued || item.status === JobItemStatus.Sending),
    );
    return jobViewOf(job, items);
  }

  /** The job with its rows counted by state and its progress. */
  async get(jobId: string): Promise<JobView> {
    const job = await this.#store.get(jobId);
    if (!job) throw new NotFoundError('correction job', jobId);
    return jobViewOf(job, await this.#store.allItems(jobId));
  }

  /** One page of the job's rows with their results, in row order. */
  async items(jobId: string, query: { limit: number; cursor?: string }): Promise<CursorPage<JobItem>> {
    if (!(await this.#store.get(jobId))) throw new NotFoundError('correction job', jobId);
    return this.#store.items(jobId, query);
  }

  /** Every row of the job, for the results CSV. */
  async allItems(jobId: string): Promise<JobItem[]> {
    if (!(await this.#store.get(jobId))) throw new NotFoundError('correction job', jobId);
    return this.#store.allItems(jobId);
  }

  /** Jobs, newest first (without counts: `get` a job for those). */
  list(query: { limit: number; cursor?: string }): Promise<CursorPage<CorrectionJob>> {
    return this.#store.list(query);
  }

  /**
   * A worker's part: the rows of one message, in order. A row already done is skipped; a row claimed by a
   * delivery that never recorded its answer is `unknown` (it may have been sent) and is never sent again.
   * Resolves `handed_back` when `stopStartingAt` (epoch ms) came before every row was done.
   */
  async work(work: CorrectionWork, stopStartingAt: number): Promise<'done' | 'handed_back'> {
    const job = await this.#store.get(work.jobId);
    if (!job) {
      // Only a bug enqueues a job that was never stored: the message goes back, then to the DLQ, which alarms.
      throw new NotFoundError('correction job', work.jobId);
    }
    for (const index of work.indexes) {
      if (this.#clock.now().getTime() >= stopStartingAt) return 'handed_back';
      const row = await this.#store.item(work.jobId, index);
      if (!row || row.bulkPayoutItemId !== work.bulkPayoutItemId) {
        this.#logger.error('correction job message names no such row', { jobId: work.jobId, index });
        continue;
      }
      if (row.status === JobItemStatus.Sending) {
        await this.#store.transition(row, JobItemStatus.Sending, JobItemStatus.Unknown, this.#now(), {
          failure: WORKER_STOPPED,
        });
        this.#logger.warn('correction job row left claimed by a stopped worker: unknown, not resent', {
          jobId: row.jobId,
          index: row.index,
        });
        continue;
      }
      if (row.status !== JobItemStatus.Queued) continue;
      await this.#run(row, job.requestedBy);
    }
    return 'done';
  }

  /** A held row's correction was approved and sent: the row takes its outcome (`HeldJobRowOutcomes`). */
  async recordHeldOutcome(
    held: NonNullable<PendingCorrection['job']>,
    result: CorrectionResult,
  ): Promise<void> {
    const { status, result: rowResult } = rowOutcomeOf(result);
    await this.#settleHeldRow(held, status, rowResult);
  }

  /**
   * A held row's correction was withdrawn before anyone approved it: the row ends `cancelled`, nothing sent, with
   * who withdrew it and why as its failure (the results CSV's "why it was not sent" columns).
   */
  async recordHeldCancellation(
    held: NonNullable<PendingCorrection['job']>,
    cancelled: HeldCancellation,
  ): Promise<void> {
    const by = `cancelled by ${cancelled.cancelledBy.id}`;
    const rowResult: JobItemResult = {
      failure: {
        code: 'CANCELLED',
        message: cancelled.cancelReason === undefined ? by : `${by}: ${cancelled.cancelReason}`,
      },
    };
    await this.#settleHeldRow(held, JobItemStatus.Cancelled, rowResult);
  }

  /**
   * Ends a held row once its correction is decided (sent, or withdrawn). From `queued` too: a redelivery may not yet
   * have moved the row to `pending_approval` when its correction was decided.
   */
  async #settleHeldRow(
    held: NonNullable<PendingCorrection['job']>,
    status: JobItemStatus,
    rowResult: JobItemResult,
  ): Promise<void> {
    const at = this.#now();
    const row = { jobId: held.jobId, index: held.index };
    if (await this.#store.transition(row, JobItemStatus.PendingApproval, status, at, rowResult)) return;
    await this.#store.transition(row, JobItemStatus.Queued, status, at, rowResult);
  }

  async #run(row: JobItem, actor: Principal): Promise<void> {
    const fields = CorrectionFieldsSchema.parse(row.fields);
    // Whether this delivery took the row's claim: a row paused after its claim (the pause read that follows the
    // claim) leaves `sending` for `paused`, the claim given back unsent; one held, refused or paused before any
    // claim leaves `queued`.
    let claimed = false;
    const result = await this.#corrections.correctJobRow(row.bulkPayoutItemId, fields, actor, {
      job: { jobId: row.jobId, index: row.index },
      correctionId: row.correctionId,
      // The claim commits with the row's reservation on the daily cap; refused by the cap, it stays unclaimed and
      // the row leaves `queued` for `cap_exceeded`.
      claim: async (cap) => {
        claimed = await this.#store.claim(row, this.#now(), cap);
        return claimed;
      },
    });
    if (result.outcome === 'skipped') return;
    const { status, result: rowResult } = rowOutcomeOf(result);
    await this.#store.transition(
      row,
      claimed ? JobItemStatus.Sending : JobItemStatus.Queued,
      status,
      this.#now(),
      rowResult,
    );
  }

  async #enqueue(jobId: string, items: readonly JobItem[]): Promise<void> {
    if (!this.#queue) throw new CorrectionJobsNotConfiguredError();
    const messages = workOf(jobId, items).map(correctionMessageOf);
    try {
      await this.#queue.send(messages);
    } catch (error) {
      this.#logger.error('correction job not fully enqueued', {
        jobId,
        error: error instanceof Error ? error.name : String(error),
      });
      throw new CorrectionJobNotEnqueuedError(jobId, { cause: error });
    }
    // A failure here only leaves the job to the sweeper, which sends its work again (harmless: see requeue).
    await this.#store.markEnqueued(jobId).catch((error: unknown) => {
      this.#logger.warn('correction job enqueued but not marked so; the sweeper sends it again', {
        jobId,
        error: error instanceof Error ? error.name : String(error),
      });
    });
  }

  /** The job holding the key, if any; the key with another request is refused. */
  async #keyedJob(keyed: {
    idempotencyKey: string;
    requestFingerprint: string;
  }): Promise<JobView | undefined> {
    const holder = await this.#store.keyedJob(keyed.idempotencyKey);
    if (!holder) return undefined;
    if (holder.requestFingerprint !== keyed.requestFingerprint)
      throw new IdempotencyConflictError('correction job', keyed.idempotencyKey, holder.jobId);
    return this.get(holder.jobId);
  }

  #now(): string {
    return this.#clock.now().toISOString();
  }
}
