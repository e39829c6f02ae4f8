import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Approval, Principal } from '../controls/index.js';
import { forEachAtOnce } from '../shared/at-once.js';
import { decodeCursor, encodeCursor } from '../shared/cursor.js';
import {
  BatchWriteCommand,
  DocumentClient,
  GetCommand,
  QueryCommand,
  UpdateCommand,
} from '../shared/document-client.js';
import { errorKind, InvalidCursorError } from '../shared/errors.js';
import { createWithIdempotencyKey, IdempotentCreateGuardError } from '../shared/idempotent-create.js';
import { type Listing, listingAttributes, queryListing } from '../shared/index-listing.js';
import type { CursorPage } from '../shared/paging.js';
import {
  storedPrincipal as principalSchema,
  storedApproval,
  storedRejection,
} from '../shared/stored-principal.js';
import * as z from '../shared/zod.js';
import { TableIndexes } from '../table/index.js';
import { type PayoutRun, type RunRow, RunState } from './model.js';

/**
 * Payout runs in the single table, one item collection per run:
 *
 * | item | pk                              | sk           | indexes                                                 |
 * |------|---------------------------------|--------------|---------------------------------------------------------|
 * | run  | PAYOUT_RUN#<runId>              | RUN          | gsi1 PAYOUT_RUN#STATE#<state>, gsi2 PAYOUT_RUN#ALL; gsi3 PAYOUT_RUN#MATERIALISE while materialising |
 * | row  | PAYOUT_RUN#<runId>              | ROW#<00000>  |                                                         |
 * | file | PAYOUT_RUN#FILE#<fingerprint>   | RUN#<runId>  | (the runs of the same rows: a probable duplicate)       |
 * | claim| PAYOUT_RUN#FILE#<fingerprint>   | FIRST        | (the first run of these rows not acknowledged as a duplicate: written only if absent) |
 * | end  | PAYOUT_RUN#<runId>              | END#<00000>  | (the row's end, counted onto the run once: written only if absent) |
 * | key  | IDEMPOTENCY#payout-run#<key>    | IDEMPOTENCY  | (the client's Idempotency-Key, naming the run: `runId`) |
 *
 * The run item counts its rows' ends in flat attributes (`endedRows`, `endedAttention`, `endedSentKobo`,
 * `endedFailedKobo`, `ended_<end>`): DynamoDB's ADD needs no map to exist first, so the first end needs no set-up.
 */
export const runKeys = {
  run: (runId: string) => ({ pk: `PAYOUT_RUN#${runId}`, sk: 'RUN' }),
  row: (runId: string, index: number) => ({
    pk: `PAYOUT_RUN#${runId}`,
    sk: `ROW#${String(index).padStart(5, '0')}`,
  }),
  file: (contentFingerprint: string, runId: string) => ({
    pk: `PAYOUT_RUN#FILE#${contentFingerprint}`,
    sk: `RUN#${runId}`,
  }),
  /** Claimed in the run's own transaction, only if absent: two runs of the same rows at once cannot both pass. */
  fileClaim: (contentFingerprint: string) => ({
    pk: `PAYOUT_RUN#FILE#${contentFingerprint}`,
    sk: 'FIRST',
  }),
  /** A row's end, counted once: its marker is put only if absent, in the transaction that counts it. */
  rowEnd: (runId: string, index: number) => ({
    pk: `PAYOUT_RUN#${runId}`,
    sk: `END#${String(index).padStart(5, '0')}`,
  }),
  idempotency: (idempotencyKey: string) => ({
    pk: `IDEMPOTENCY#payout-run#${idempotencyKey}`,
    sk: 'IDEMPOTENCY',
  }),
} as const;

const MATERIALISE_PARTITION = 'PAYOUT_RUN#MATERIALISE';
const { workQueue, byStatus } = TableIndexes;
export const runListing: Listing = {
  statePartition: (state) => `PAYOUT_RUN#STATE#${state}`,
  allPartition: 'PAYOUT_RUN#ALL',
};

/** DynamoDB's limit on one BatchWriteItem. */
export const RUN_ROWS_PER_BATCH_WRITE = 25;
const BATCH_WRITE_ATTEMPTS = 5;
/** BatchWriteItem calls at once: a 10,000-row run is 400 calls, 8 at a time. */
const BATCH_WRITES_IN_FLIGHT = 8;

export const runSchema = z.lazy(() =>
  z.object({
    runId: z.string(),
    state: z.enum(Object.values(RunState)),
    count: z.int(),
    totalKobo: z.int(),
    largestRows: z.array(z.object({ row: z.int(), reference: z.string(), amountKobo: z.int() })),
    fileSha256: z.string(),
    contentFingerprint: z.string(),
    source: z.enum(['csv', 'json']),
    requestedBy: principalSchema,
    createdAt: z.string(),
    updatedAt: z.string(),
    approvalReason: z.optional(z.string()),
    approvedBy: z.optional(principalSchema),
    approvedAt: z.optional(z.string()),
    firstApproval: z.optional(storedApproval),
    materialised: z.int(),
    acknowledged: z.optional(z.object({ duplicateLines: z.int(), duplicateRunIds: z.array(z.string()) })),
    cancelledBy: z.optional(principalSchema),
    cancelledAt: z.optional(z.string()),
    cancelReason: z.optional(z.string()),
    rejection: z.optional(storedRejection),
    endedAt: z.optional(z.string()),
  }),
);

const rowSchema = z.lazy(() =>
  z.object({
    runId: z.string(),
    index: z.int(),
    reference: z.string(),
    amountKobo: z.int(),
    beneficiary: z.object({ bankCode: z.string(), accountNumber: z.string(), accountName: z.string() }),
    narration: z.string(),
    scheduleAt: z.optional(z.string()),
    payoutId: z.optional(z.string()),
    failure: z.optional(z.object({ code: z.string(), message: z.string() })),
  }),
);
const RowCursorSchema = z.lazy(() =>
  z.strictObject({
    pk: z.string().check(z.regex(/^PAYOUT_RUN#[0-9A-HJKMNP-TV-Z]{26}$/)),
    sk: z.string().check(z.regex(/^ROW#\d{5}$/)),
  }),
);

/** Another run of the same rows claimed the file first (a concurrent duplicate): nothing of this run was stored. */
export class FileClaimedError extends /* @__PURE__ */ errorKind(
  'FileClaimedError',
  'PAYOUT_RUN_FILE_CLAIMED',
) {
  constructor(options?: ErrorOptions) {
    super('another run of the same rows was stored first', options);
  }
}

export const isConditionFailure = (error: unknown) =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

/** The runs and their rows; every change of a run is conditional on the state it was read in. */
export class DynamoDbPayoutRunStore {
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
  ): Promise<{ readonly created: true } | { readonly created: false; readonly ownerId: string }> {
    const batches: RunRow[][] = [];
    for (let start = 0; start < rows.length; start += RUN_ROWS_PER_BATCH_WRITE) {
      batches.push(rows.slice(start, start + RUN_ROWS_PER_BATCH_WRITE));
    }
    await forEachAtOnce(batches, BATCH_WRITES_IN_FLIGHT, (batch) => this.#writeRows(run.runId, batch));
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

  /** One BatchWriteItem of at most 25 rows, offering what DynamoDB hands back unprocessed again. */
  async #writeRows(runId: string, rows: readonly RunRow[]): Promise<void> {
    let requests: NonNullable<ConstructorParameters<typeof BatchWriteCommand>[0]['RequestItems']>[string] =
      rows.map((row) => ({
        PutRequest: { Item: { ...runKeys.row(row.runId, row.index), entity: 'payout-run-row', ...row } },
      }));
    for (let attempt = 0; requests.length > 0 && attempt < BATCH_WRITE_ATTEMPTS; attempt++) {
      const result = await this.#doc.send(
        new BatchWriteCommand({ RequestItems: { [this.tableName]: requests } }),
      );
      requests = result.UnprocessedItems?.[this.tableName] ?? [];
    }
    if (requests.length > 0) throw new Error(`${requests.length} rows of run ${runId} were not written`);
  }

  /** The run holding an idempotency key, with the fingerprint of the request that created it; undefined if none. */
  async keyedRun(
    idempotencyKey: string,
  ): Promise<{ readonly run: PayoutRun; readonly requestFingerprint?: string } | undefined> {
    const { Item: key } = await this.#doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: runKeys.idempotency(idempotencyKey),
        ConsistentRead: true,
      }),
    );
    if (typeof key?.runId !== 'string') return undefined;
    const { Item } = await this.#doc.send(
      new GetCommand({ TableName: this.tableName, Key: runKeys.run(key.runId), ConsistentRead: true }),
    );
    if (!Item) return undefined;
    const requestFingerprint: unknown = Item.requestFingerprint;
    return {
      run: runSchema.parse(Item),
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
    const { Item } = await this.#doc.send(
      new GetCommand({ TableName: this.tableName, Key: runKeys.run(runId), ConsistentRead: true }),
    );
    return Item ? runSchema.parse(Item) : undefined;
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
  async rows(
    runId: string,
    query: { limit: number; cursor?: string; fromIndex?: number },
  ): Promise<CursorPage<RunRow>> {
    const pk = runKeys.run(runId).pk;
    let startKey: { pk: string; sk: string } | undefined;
    if (query.cursor !== undefined) {
      startKey = decodeCursor(query.cursor, RowCursorSchema);
      if (!startKey || startKey.pk !== pk) throw new InvalidCursorError('not a cursor of this run');
    }
    const from = runKeys.row(runId, query.fromIndex ?? 0).sk;
    const page = await this.#doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :last',
        ExpressionAttributeValues: { ':pk': pk, ':from': from, ':last': 'ROW#99999' },
        ConsistentRead: true,
        Limit: query.limit,
        ...(startKey && { ExclusiveStartKey: startKey }),
      }),
    );
    const items = (page.Items ?? []).map((item) => rowSchema.parse(item));
    const last = page.LastEvaluatedKey;
    return last
      ? { items, nextCursor: encodeCursor({ pk: String(last.pk), sk: String(last.sk) }) }
      : { items };
  }

  /** Every row of the run, in row order (a run has at most 10,000). */
  async allRows(runId: string): Promise<RunRow[]> {
    const all: RunRow[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.rows(runId, { limit: 1000, ...(cursor !== undefined && { cursor }) });
      all.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return all;
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
    changes: Partial<
      Pick<
        PayoutRun,
        | 'approvedBy'
        | 'approvedAt'
        | 'firstApproval'
        | 'materialised'
        | 'cancelledBy'
        | 'cancelledAt'
        | 'cancelReason'
        | 'rejection'
      >
    > & {
      readonly updatedAt: string;
    },
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
    if (to === RunState.Materialising) {
      names['#wqpk'] = workQueue.partitionKey;
      names['#wqsk'] = workQueue.sortKey;
      values[':wqpk'] = MATERIALISE_PARTITION;
      values[':wqsk'] = `${run.createdAt}#${run.runId}`;
      expression += ', #wqpk = :wqpk, #wqsk = :wqsk';
    } else {
      names['#wqpk'] = workQueue.partitionKey;
      names['#wqsk'] = workQueue.sortKey;
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
      if (isConditionFailure(error)) return false;
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
