import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { CapChange } from '../../payouts/index.js';
import { BATCH_WRITE_MAX_ITEMS, putInBatches } from '../../shared/batch-write.js';
import { isConditionalCheckFailed } from '../../shared/conditional-check.js';
import { DocumentClient, PutCommand, QueryCommand, UpdateCommand } from '../../shared/document-client.js';
import { createWithIdempotencyKey } from '../../shared/idempotent-create.js';
import { type Listing, listingAttributes, queryListing } from '../../shared/index-listing.js';
import { queryCollectionPage } from '../../shared/item-collection.js';
import { type CursorPage, collectPages } from '../../shared/paging.js';
import { storedPrincipal as principalSchema } from '../../shared/stored-principal.js';
import { dueWorkQuery, readItem } from '../../shared/table-reads.js';
import * as z from '../../shared/zod.js';
import { TableIndexes } from '../../table/index.js';
import { type CorrectionJob, type JobItem, type JobItemResult, JobItemStatus } from '../job-model.js';
import { type CorrectionWork, CorrectionWorkSchema } from '../job-queue.js';
import type { CorrectionJobStore, PendingEnqueue } from '../job-store.js';
import { claimWithCap } from './cap-reservation.js';

// The schemas below are built on first use (z.lazy), not when a function loads this module: a cold start that never
// reads these items does not pay for them (docs/cold-start.md).

/**
 * Correction jobs in the single table, one item collection per job:
 *
 * | item | pk                       | sk            | gsi1 / gsi2 (listing)                                  |
 * |------|--------------------------|---------------|--------------------------------------------------------|
 * | job  | CORRECTION_JOB#<jobId>   | JOB           | CORRECTION_JOB#BY#<requester> / CORRECTION_JOB#ALL     |
 * | row  | CORRECTION_JOB#<jobId>   | ITEM#<0000>   |                                                        |
 * | key  | IDEMPOTENCY#correction-job#<key> | IDEMPOTENCY | (the client's Idempotency-Key, naming the job: `jobId`) |
 *
 * Counts are derived from the rows, so a fleet of workers never contends on one item. The job item changes only
 * while its work is not yet with the queue: it carries that work (`enqueue`) and sits in the work-queue index
 * (gsi3, `CORRECTION_JOB#ENQUEUE` / `<dueAt>#<jobId>`) until the queue took all of it; the sweeper hands over
 * what a refusal left there (lib/bulk-corrections/pending-enqueue.ts).
 */
export const jobKeys = {
  job: (jobId: string) => ({ pk: `CORRECTION_JOB#${jobId}`, sk: 'JOB' }),
  /** A client's Idempotency-Key on POST /bulk-payout-items/corrections, naming the job it created. */
  idempotency: (idempotencyKey: string) => ({
    pk: `IDEMPOTENCY#correction-job#${idempotencyKey}`,
    sk: 'IDEMPOTENCY',
  }),
  item: (jobId: string, index: number) => ({
    pk: `CORRECTION_JOB#${jobId}`,
    sk: `ITEM#${String(index).padStart(4, '0')}`,
  }),
} as const;

const ENQUEUE_PARTITION = 'CORRECTION_JOB#ENQUEUE';
const { workQueue } = TableIndexes;

// Built on first use (z.lazy), as the job schemas below: the sweep loads this store for the hand-over of pending
// jobs, which finds none on almost every tick.
const pendingSchema = z.lazy(() =>
  z.object({
    jobId: z.string(),
    enqueue: z.object({ work: z.array(CorrectionWorkSchema), attempts: z.int() }),
  }),
);

const jobListing: Listing = {
  statePartition: (requester) => `CORRECTION_JOB#BY#${requester}`,
  allPartition: 'CORRECTION_JOB#ALL',
};

/** DynamoDB's limit on one BatchWriteItem. */
export const ROWS_PER_BATCH_WRITE = BATCH_WRITE_MAX_ITEMS;
/** BatchWriteItem calls at once: a 500-row job is 20 calls, 4 at a time (a bounded burst of 100 writes). */
const BATCH_WRITES_IN_FLIGHT = 4;

const jobSchema = z.lazy(() =>
  z.object({
    jobId: z.string(),
    total: z.int(),
    source: z.enum(['json', 'csv']),
    requestedBy: principalSchema,
    createdAt: z.string(),
  }),
);
const value = z.lazy(() => z.union([z.string(), z.number()]));
const resultSchema = z.lazy(() =>
  z.object({
    isValid: z.optional(z.boolean()),
    reason: z.optional(z.nullable(z.string())),
    failure: z.optional(z.object({ code: z.string(), message: z.string() })),
    issues: z.optional(z.array(z.object({ path: z.string(), message: z.string() }))),
    approvalReason: z.optional(z.string()),
  }),
);
const itemSchema = z.lazy(() =>
  z.object({
    jobId: z.string(),
    index: z.int(),
    bulkPayoutItemId: z.string(),
    fields: z.record(z.string(), value),
    correctionId: z.string(),
    status: z.enum([
      'queued',
      'sending',
      'pending_approval',
      'corrected',
      'still_invalid',
      'invalid',
      'provider_rejected',
      'not_sent',
      'unknown',
      'paused',
      'cap_exceeded',
      'cancelled',
    ]),
    result: z.optional(resultSchema),
    updatedAt: z.string(),
  }),
);

const ItemCursorSchema = z.lazy(() =>
  z.strictObject({
    pk: z.string().check(z.regex(/^CORRECTION_JOB#[0-9A-HJKMNP-TV-Z]{26}$/)),
    sk: z.string().check(z.regex(/^ITEM#\d{4}$/)),
  }),
);

/**
 * Correction jobs and their rows in the project's table (the CorrectionJobStore port, job-store.ts); every change of
 * a row is conditional on the state it was read in.
 */
export class DynamoDbCorrectionJobStore implements CorrectionJobStore {
  readonly #doc: DocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
  ) {
    this.#doc = DocumentClient.from(client);
  }

  /**
   * Stores a job: its rows first, 25 per BatchWriteItem, a few calls at once (retrying what DynamoDB hands back), then the job item,
   * so a job that is visible has every row. A request that dies half-way leaves rows nobody lists or sends.
   */
  /**
   * Stores a job: its rows first, then the job item, which makes it exist. With `keyed`, the job item is written
   * in one transaction with its idempotency key item (`IDEMPOTENCY#correction-job#<key>`), each only if absent,
   * and carries the request's fingerprint; when another job holds the key already, nothing of the job item is
   * written and its id is answered (the rows written here stay behind, unreferenced).
   */
  async create(
    job: CorrectionJob,
    items: readonly JobItem[],
    pending?: { work: readonly CorrectionWork[]; dueAt: string },
    keyed?: { readonly idempotencyKey: string; readonly requestFingerprint: string },
  ): Promise<{ readonly created: true } | { readonly created: false; readonly ownerId: string }> {
    await putInBatches(
      this.#doc,
      this.tableName,
      items.map((item) => ({
        ...jobKeys.item(item.jobId, item.index),
        entity: 'correction-job-item',
        ...item,
      })),
      { inFlight: BATCH_WRITES_IN_FLIGHT, what: `rows of job ${job.jobId}` },
    );
    const jobItem = {
      ...jobKeys.job(job.jobId),
      entity: 'correction-job',
      ...job,
      ...listingAttributes(jobListing, job.requestedBy.id, job.createdAt, job.jobId),
      ...(pending && {
        enqueue: { work: pending.work, attempts: 0 },
        [workQueue.partitionKey]: ENQUEUE_PARTITION,
        [workQueue.sortKey]: `${pending.dueAt}#${job.jobId}`,
      }),
    };
    if (keyed) {
      return createWithIdempotencyKey(this.#doc, {
        tableName: this.tableName,
        key: jobKeys.idempotency(keyed.idempotencyKey),
        ownerAttribute: 'jobId',
        ownerId: job.jobId,
        createdAt: job.createdAt,
        items: [{ ...jobItem, requestFingerprint: keyed.requestFingerprint }],
      });
    }
    await this.#doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: jobItem,
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return { created: true };
  }

  /** The job that holds an idempotency key, with the fingerprint of the request that created it; undefined if none. */
  async keyedJob(
    idempotencyKey: string,
  ): Promise<{ readonly jobId: string; readonly requestFingerprint?: string } | undefined> {
    const key = await readItem(this.#doc, this.tableName, jobKeys.idempotency(idempotencyKey));
    if (typeof key?.jobId !== 'string') return undefined;
    const job = await readItem(this.#doc, this.tableName, jobKeys.job(key.jobId));
    const requestFingerprint: unknown = job?.requestFingerprint;
    return { jobId: key.jobId, ...(typeof requestFingerprint === 'string' && { requestFingerprint }) };
  }

  /** The queue took all of the job's work: it leaves the work-queue index. */
  async markEnqueued(jobId: string): Promise<void> {
    await this.#doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: jobKeys.job(jobId),
        UpdateExpression: 'REMOVE #enqueue, #wqpk, #wqsk',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: {
          '#enqueue': 'enqueue',
          '#wqpk': workQueue.partitionKey,
          '#wqsk': workQueue.sortKey,
        },
      }),
    );
  }

  /** Sending failed again: the job is due once more at `dueAt`. */
  async retryEnqueueAt(pending: PendingEnqueue, dueAt: string): Promise<void> {
    await this.#doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: jobKeys.job(pending.jobId),
        UpdateExpression: 'SET #enqueue.#attempts = :attempts, #wqsk = :sk',
        ConditionExpression: 'attribute_exists(#enqueue)',
        ExpressionAttributeNames: {
          '#enqueue': 'enqueue',
          '#attempts': 'attempts',
          '#wqsk': workQueue.sortKey,
        },
        ExpressionAttributeValues: { ':attempts': pending.attempts + 1, ':sk': `${dueAt}#${pending.jobId}` },
      }),
    );
  }

  /** Jobs whose work is still to be handed to the queue, due by `dueBy`, earliest first. */
  async dueForEnqueue(dueBy: string, limit: number): Promise<PendingEnqueue[]> {
    const { Items } = await this.#doc.send(
      new QueryCommand(dueWorkQuery(this.tableName, ENQUEUE_PARTITION, dueBy, limit)),
    );
    return (Items ?? []).map((item) => {
      const { jobId, enqueue } = pendingSchema.parse(item);
      return { jobId, work: enqueue.work, attempts: enqueue.attempts };
    });
  }

  async get(jobId: string): Promise<CorrectionJob | undefined> {
    const item = await readItem(this.#doc, this.tableName, jobKeys.job(jobId));
    return item ? jobSchema.parse(item) : undefined;
  }

  /** Jobs, newest first. @throws InvalidCursorError when the cursor is not one this listing issued */
  list(query: { limit: number; cursor?: string }): Promise<CursorPage<CorrectionJob>> {
    return queryListing(this.#doc, this.tableName, jobListing, query, (item) => jobSchema.parse(item));
  }

  async item(jobId: string, index: number): Promise<JobItem | undefined> {
    const row = await readItem(this.#doc, this.tableName, jobKeys.item(jobId, index));
    return row ? itemSchema.parse(row) : undefined;
  }

  /**
   * One page of the job's rows in row order.
   *
   * @throws InvalidCursorError when the cursor is not one this job's listing issued
   */
  items(jobId: string, query: { limit: number; cursor?: string }): Promise<CursorPage<JobItem>> {
    return queryCollectionPage(
      this.#doc,
      this.tableName,
      {
        partitionKey: jobKeys.job(jobId).pk,
        sortKey: 'begins_with(sk, :item)',
        values: { ':item': 'ITEM#' },
        cursorShape: ItemCursorSchema,
        of: 'job',
      },
      query,
      (item) => itemSchema.parse(item),
    );
  }

  /** Every row of the job, in row order (a job has at most 500). */
  async allItems(jobId: string): Promise<JobItem[]> {
    const { items } = await collectPages((cursor) =>
      this.items(jobId, { limit: 500, ...(cursor !== undefined && { cursor }) }),
    );
    return items;
  }

  /**
   * The row's claim (`queued -> sending`) before its provider call, in one transaction with the reservation of its
   * amount at stake on the daily cap (`cap`; none when nothing is at stake). False when the row was no longer
   * queued (another delivery claimed it).
   *
   * @throws DailyCapExceededError when the reservation would pass the cap: nothing written, the row still queued
   */
  claim(item: Pick<JobItem, 'jobId' | 'index'>, at: string, cap: CapChange | undefined): Promise<boolean> {
    return claimWithCap(
      this.#doc,
      this.tableName,
      {
        Update: {
          TableName: this.tableName,
          Key: jobKeys.item(item.jobId, item.index),
          UpdateExpression: 'SET #status = :to, updatedAt = :at',
          ConditionExpression: '#status = :from',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':to': JobItemStatus.Sending,
            ':from': JobItemStatus.Queued,
            ':at': at,
          },
        },
      },
      cap,
    );
  }

  /**
   * Moves a row from `from` to `to`, with its result: the claim (`queued -> sending`) before a provider call and
   * every later step. False when the row was no longer in `from` (another delivery got there first).
   */
  async transition(
    item: Pick<JobItem, 'jobId' | 'index'>,
    from: JobItemStatus,
    to: JobItemStatus,
    at: string,
    result?: JobItemResult,
  ): Promise<boolean> {
    try {
      await this.#doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: jobKeys.item(item.jobId, item.index),
          UpdateExpression: `SET #status = :to, updatedAt = :at${result ? ', #result = :result' : ''}`,
          ConditionExpression: '#status = :from',
          ExpressionAttributeNames: { '#status': 'status', ...(result && { '#result': 'result' }) },
          ExpressionAttributeValues: {
            ':to': to,
            ':from': from,
            ':at': at,
            ...(result && { ':result': result }),
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }
}
