import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Approval, Principal } from '../controls/index.js';
import { putInBatches } from '../shared/batch-write.js';
import { isConditionalCheckFailed } from '../shared/conditional-check.js';
import { DocumentClient, QueryCommand, UpdateCommand } from '../shared/document-client.js';
import { errorKind } from '../shared/errors.js';
import {
  createWithIdempotencyKey,
  IdempotentCreateGuardError,
  type IdempotentCreateOutcome,
} from '../shared/idempotent-create.js';
import { listingAttributes, queryListing } from '../shared/index-listing.js';
import { queryCollectionPage } from '../shared/item-collection.js';
import { type CursorPage, collectPages } from '../shared/paging.js';
import { readItem } from '../shared/table-reads.js';
import { TableIndexes } from '../table/index.js';
import { type PayoutRun, type RunRow, RunState } from './model.js';
import {
  MATERIALISE_PARTITION,
  RowCursorSchema,
  rowSchema,
  runKeys,
  runListing,
  runSchema,
} from './run-items.js';
import type { PayoutRunRecords, RunTransitionChanges } from './run-records.js';

const { workQueue, byStatus } = TableIndexes;
/** BatchWriteItem calls at once: a 10,000-row run is 400 calls, 8 at a time. */
const BATCH_WRITES_IN_FLIGHT = 8;

/** Another run of the same rows claimed the file first (a concurrent duplicate): nothing of this run was stored. */
export class FileClaimedError extends /* @__PURE__ */ errorKind(
  'FileClaimedError',
  'PAYOUT_RUN_FILE_CLAIMED',
) {
  constructor(options?: ErrorOptions) {
    super('another run of the same rows was stored first', options);
  }
}

/** The runs and their rows; every change of a run is conditional on the state it was read in. */
export class DynamoDbPayoutRunStore implements PayoutRunRecords {
  readonly #doc: DocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
  ) {
    this.#doc = DocumentClient.from(client);
  }

  /**
   * Stores a run: its rows first, 25 per BatchWriteItem, then in one transaction the run item, its file record
   * and its idempotency key item, each only if absent. A request that dies half-way leaves rows nobody lists or
   * pays; when another run holds the key already, the run item is not written and that run's id is answered.
   *
   * With `claimFile` (no earlier run of these rows was seen), the transaction also writes the file's claim only if
   * absent: when a concurrent run of the same rows claimed it first, nothing is written and the check of earlier
   * runs must be made again (it then finds that run).
   *
   * @throws FileClaimedError when `claimFile` and another run of the same rows holds the claim
   */
  async create(
    run: PayoutRun,
    rows: readonly RunRow[],
    idempotencyKey: string,
    requestFingerprint: string,
    options: { readonly claimFile?: boolean } = {},
  ): Promise<IdempotentCreateOutcome> {
    await putInBatches(
      this.#doc,
      this.tableName,
      rows.map((row) => ({ ...runKeys.row(row.runId, row.index), entity: 'payout-run-row', ...row })),
      { inFlight: BATCH_WRITES_IN_FLIGHT, what: `rows of run ${run.runId}` },
    );
    const claim = {
      Put: {
        TableName: this.tableName,
        Item: {
          ...runKeys.fileClaim(run.contentFingerprint),
          entity: 'payout-run-file-claim',
          runId: run.runId,
          createdAt: run.createdAt,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
    try {
      return await this.#createKeyed(
        run,
        idempotencyKey,
        requestFingerprint,
        options.claimFile ? [claim] : [],
      );
    } catch (error) {
      if (error instanceof IdempotentCreateGuardError) throw new FileClaimedError({ cause: error });
      throw error;
    }
  }

  #createKeyed(
    run: PayoutRun,
    idempotencyKey: string,
    requestFingerprint: string,
    guards: NonNullable<Parameters<typeof createWithIdempotencyKey>[1]['guards']>,
  ) {
    return createWithIdempotencyKey(this.#doc, {
      guards,
      tableName: this.tableName,
      key: runKeys.idempotency(idempotencyKey),
      ownerAttribute: 'runId',
      ownerId: run.runId,
      createdAt: run.createdAt,
      items: [
        { ...this.#runItem(run), requestFingerprint },
        {
          ...runKeys.file(run.contentFingerprint, run.runId),
          entity: 'payout-run-file',
          runId: run.runId,
          createdAt: run.createdAt,
        },
      ],
    });
  }

  #runItem(run: PayoutRun) {
    return {
      ...runKeys.run(run.runId),
      entity: 'payout-run',
      ...run,
      ...listingAttributes(runListing, run.state, run.createdAt, run.runId),
      ...(run.state === RunState.Materialising && {
        [workQueue.partitionKey]: MATERIALISE_PARTITION,
        [workQueue.sortKey]: `${run.createdAt}#${run.runId}`,
      }),
    };
  }

  /** The run holding an idempotency key, with the fingerprint of the request that created it; undefined if none. */
  async keyedRun(
    idempotencyKey: string,
  ): Promise<{ readonly run: PayoutRun; readonly requestFingerprint?: string } | undefined> {
    const key = await readItem(this.#doc, this.tableName, runKeys.idempotency(idempotencyKey));
    if (typeof key?.runId !== 'string') return undefined;
    const item = await readItem(this.#doc, this.tableName, runKeys.run(key.runId));
    if (!item) return undefined;
    const requestFingerprint: unknown = item.requestFingerprint;
    return {
      run: runSchema.parse(item),
      ...(typeof requestFingerprint === 'string' && { requestFingerprint }),
    };
  }

  /** The ids of the runs stored with these rows (the same payments), oldest first. */
  async runsWithContent(contentFingerprint: string): Promise<string[]> {
    const { Items } = await this.#doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :run)',
        ExpressionAttributeValues: { ':pk': runKeys.file(contentFingerprint, '').pk, ':run': 'RUN#' },
        ConsistentRead: true,
        Limit: 20,
      }),
    );
    return (Items ?? []).map((item) => String(item.runId));
  }

  async get(runId: string): Promise<PayoutRun | undefined> {
    const item = await readItem(this.#doc, this.tableName, runKeys.run(runId));
    return item ? runSchema.parse(item) : undefined;
  }

  /** Runs, newest first, of one state or all. @throws InvalidCursorError when the cursor is not one this listing issued */
  list(query: { limit: number; cursor?: string; state?: RunState }): Promise<CursorPage<PayoutRun>> {
    return queryListing(this.#doc, this.tableName, runListing, query, (item) => runSchema.parse(item));
  }

  /**
   * One page of the run's rows in row order, from `fromIndex` when given.
   *
   * @throws InvalidCursorError when the cursor is not one this run's listing issued
   */
  rows(
    runId: string,
    query: { limit: number; cursor?: string; fromIndex?: number },
  ): Promise<CursorPage<RunRow>> {
    return queryCollectionPage(
      this.#doc,
      this.tableName,
      {
        partitionKey: runKeys.run(runId).pk,
        sortKey: 'sk BETWEEN :from AND :last',
        values: { ':from': runKeys.row(runId, query.fromIndex ?? 0).sk, ':last': 'ROW#99999' },
        cursorShape: RowCursorSchema,
        of: 'run',
      },
      query,
      (item) => rowSchema.parse(item),
    );
  }

  /** Every row of the run, in row order (a run has at most 10,000). */
  async allRows(runId: string): Promise<RunRow[]> {
    const { items } = await collectPages((cursor) =>
      this.rows(runId, { limit: 1000, ...(cursor !== undefined && { cursor }) }),
    );
    return items;
  }

  /** Records what a row became; idempotent (a re-run records the same payout again). */
  async recordRow(
    row: Pick<RunRow, 'runId' | 'index'>,
    outcome: { payoutId: string } | { failure: { code: string; message: string } },
  ): Promise<void> {
    const field = 'payoutId' in outcome ? 'payoutId' : 'failure';
    await this.#doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: runKeys.row(row.runId, row.index),
        UpdateExpression: 'SET #field = :value',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#field': field },
        ExpressionAttributeValues: { ':value': 'payoutId' in outcome ? outcome.payoutId : outcome.failure },
      }),
    );
  }

  /**
   * Moves the run from `from` to `to` with `changes`, conditional on its state and its materialisation mark
   * (`materialised` as read), so two writers never both move it. False when it was no longer as read.
   */
  async transition(
    run: Pick<PayoutRun, 'runId' | 'state' | 'materialised' | 'createdAt'>,
    to: PayoutRun['state'],
    changes: RunTransitionChanges,
  ): Promise<boolean> {
    const names: Record<string, string> = {
      '#state': 'state',
      '#mat': 'materialised',
      '#g1': byStatus.partitionKey,
    };
    const values: Record<string, unknown> = {
      ':from': run.state,
      ':to': to,
      ':mark': run.materialised,
      ':g1': runListing.statePartition(to),
    };
    const sets = ['#state = :to', '#g1 = :g1'];
    for (const [field, value] of Object.entries(changes)) {
      if (value === undefined) continue;
      names[`#${field}`] = field;
      values[`:${field}`] = value as Principal | Approval | string | number;
      sets.push(`#${field} = :${field}`);
    }
    let expression = `SET ${sets.join(', ')}`;
    names['#wqpk'] = workQueue.partitionKey;
    names['#wqsk'] = workQueue.sortKey;
    if (to === RunState.Materialising) {
      values[':wqpk'] = MATERIALISE_PARTITION;
      values[':wqsk'] = `${run.createdAt}#${run.runId}`;
      expression += ', #wqpk = :wqpk, #wqsk = :wqsk';
    } else {
      expression += ' REMOVE #wqpk, #wqsk';
    }
    try {
      await this.#doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: runKeys.run(run.runId),
          UpdateExpression: expression,
          // A first approval is recorded once: of two at once, the second finds it and loses.
          ConditionExpression: `#state = :from AND #mat = :mark${changes.firstApproval ? ' AND attribute_not_exists(#firstApproval)' : ''}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  /** Runs whose rows are still to become payouts, oldest first. */
  async dueForMaterialise(limit: number): Promise<string[]> {
    const { Items } = await this.#doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: workQueue.indexName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': workQueue.partitionKey },
        ExpressionAttributeValues: { ':pk': MATERIALISE_PARTITION },
        Limit: limit,
      }),
    );
    return (Items ?? []).map((item) => String(item.runId));
  }
}
