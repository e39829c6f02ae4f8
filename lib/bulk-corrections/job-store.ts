import type { CapChange } from '../payouts/index.js';
import type { CursorPage } from '../shared/paging.js';
import type { CorrectionJob, JobItem, JobItemResult, JobItemStatus } from './job-model.js';
import type { CorrectionWork } from './job-queue.js';

/** A job whose work the queue has not taken yet: the messages to send, and how often sending failed. */
export interface PendingEnqueue {
  readonly jobId: string;
  readonly work: readonly CorrectionWork[];
  readonly attempts: number;
}

/**
 * The store of correction jobs and their rows, the port the job service and the hand-over of pending jobs depend on:
 * a job exists once all its rows are written (with its idempotency key, when it has one); every change of a row is
 * conditional on the status it was read in, and a row's claim commits with its reservation on the daily cap. In the
 * table: `DynamoDbCorrectionJobStore` (store/dynamodb-job-store.ts); in memory, for unit tests:
 * `InMemoryCorrectionJobStore` (store/in-memory-job-store.ts).
 */
export interface CorrectionJobStore {
  /**
   * Stores a job: its rows, then the job item, which makes it exist, with the work still to hand to the queue
   * (`pending`). With `keyed`, the job holds the idempotency key with the request's fingerprint; when another job
   * holds the key already, no job is written and its id is answered.
   */
  create(
    job: CorrectionJob,
    items: readonly JobItem[],
    pending?: { work: readonly CorrectionWork[]; dueAt: string },
    keyed?: { readonly idempotencyKey: string; readonly requestFingerprint: string },
  ): Promise<{ readonly created: true } | { readonly created: false; readonly ownerId: string }>;
  /** The job that holds an idempotency key, with the fingerprint of the request that created it; undefined if none. */
  keyedJob(
    idempotencyKey: string,
  ): Promise<{ readonly jobId: string; readonly requestFingerprint?: string } | undefined>;
  /** The queue took all of the job's work: it is no longer due for the hand-over. */
  markEnqueued(jobId: string): Promise<void>;
  /** Sending failed again: the job is due once more at `dueAt`, one attempt more. */
  retryEnqueueAt(pending: PendingEnqueue, dueAt: string): Promise<void>;
  /** Jobs whose work is still to be handed to the queue, due by `dueBy`, earliest first. */
  dueForEnqueue(dueBy: string, limit: number): Promise<PendingEnqueue[]>;
  get(jobId: string): Promise<CorrectionJob | undefined>;
  /** Jobs, newest first. @throws InvalidCursorError when the cursor is not one this listing issued */
  list(query: { limit: number; cursor?: string }): Promise<CursorPage<CorrectionJob>>;
  item(jobId: string, index: number): Promise<JobItem | undefined>;
  /**
   * One page of the job's rows in row order.
   *
   * @throws InvalidCursorError when the cursor is not one this job's listing issued
   */
  items(jobId: string, query: { limit: number; cursor?: string }): Promise<CursorPage<JobItem>>;
  /** Every row of the job, in row order (a job has at most 500). */
  allItems(jobId: string): Promise<JobItem[]>;
  /**
   * The row's claim (`queued -> sending`) with the reservation of its amount on the daily cap (`cap`). False when
   * the row was no longer queued.
   *
   * @throws DailyCapExceededError when the reservation would pass the cap: nothing written, the row still queued
   */
  claim(item: Pick<JobItem, 'jobId' | 'index'>, at: string, cap: CapChange | undefined): Promise<boolean>;
  /** Moves a row from `from` to `to`, with its result. False when the row was no longer in `from`. */
  transition(
    item: Pick<JobItem, 'jobId' | 'index'>,
    from: JobItemStatus,
    to: JobItemStatus,
    at: string,
    result?: JobItemResult,
  ): Promise<boolean>;
}
