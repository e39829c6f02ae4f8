import { type DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { encodeCursor, isStartKeyRejection } from '../../shared/cursor.js';
import { nextRequestSent } from '../../shared/dynamodb-client.js';
import { ConcurrentModificationError, InvalidCursorError } from '../../shared/errors.js';
import { createWithIdempotencyKey, IdempotentCreateGuardError } from '../../shared/idempotent-create.js';
import { readItemCollection } from '../../shared/item-collection.js';
import { jitteredPause } from '../../shared/jitter.js';
import { DailyCapExceededError } from '../errors.js';
import type { AuditEvent, Controls, Payout, PayoutStatus } from '../model.js';
import { capUpdateItem, type TransactItem } from './control-items.js';
import {
  fromAuditItem,
  fromControlsItem,
  fromPayoutItem,
  toAuditItem,
  toPayoutItem,
  workQueueOf,
} from './item-codec.js';
import { readPayoutCursor } from './list-cursor.js';
import type {
  CreateOutcome,
  CreationClaim,
  ListPage,
  ListQuery,
  PayoutStore,
  TransitionWrite,
} from './payout-store.js';
import { keys, TableIndexes, type WorkQueue } from './table-design.js';
import { type Settled, WriteCoalescer } from './write-coalescer.js';

/**
 * PayoutStore on one DynamoDB table. Creation and every transition are a single TransactWriteItems, so the
 * state change, its audit event and the cap counter commit together or not at all (the pause is read by the
 * engine once a claim committed: submit-payout.ts, `pausedNow`).
 */
export class DynamoDbPayoutStore implements PayoutStore {
  readonly #doc: DynamoDBDocumentClient;
  readonly #client: DynamoDBClient;
  readonly #coalescer: WriteCoalescer<TransitionWrite, Payout> | undefined;

  /** `coalesceWrites: false` commits every transition alone (one TransactWriteItems each). */
  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
    options: { coalesceWrites?: boolean } = {},
  ) {
    this.#client = client;
    this.#doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
    this.#coalescer =
      options.coalesceWrites === false
        ? undefined
        : new WriteCoalescer((writes) => this.#commitMany(writes), {
            maxBatch: MAX_COALESCED_TRANSITIONS,
            keyOf: (write) => write.after.id,
            groupOf: (write) => coalescingGroup(write) ?? '',
          });
  }

  afterWriteSent(): Promise<void> {
    return nextRequestSent(this.#client);
  }

  async create(payout: Payout, audit: AuditEvent, claim?: CreationClaim): Promise<CreateOutcome> {
    const outcome = await createWithIdempotencyKey(this.#doc, {
      tableName: this.tableName,
      key: keys.idempotency(payout.origin, payout.idempotencyKey),
      ownerAttribute: 'payoutId',
      ownerId: payout.id,
      createdAt: payout.createdAt,
      items: [toPayoutItem(payout), toAuditItem(claim ? [audit, claim.audit] : [audit])],
      ...(claim && { guards: [this.#capUpdate(claim.cap)] }),
    }).catch((error: unknown) => {
      if (!(error instanceof IdempotentCreateGuardError)) throw error;
      throw new DailyCapExceededError('the daily cap would be exceeded', { cause: error });
    });
    if (outcome.created) return { created: true, payout };
    const existing = await this.get(outcome.ownerId);
    if (!existing) throw new ConcurrentModificationError('payout', payout.id);
    return { created: false, existing };
  }

  async get(id: string): Promise<Payout | undefined> {
    const { Item } = await this.#doc.send(
      new GetCommand({ TableName: this.tableName, Key: keys.payout(id), ConsistentRead: true }),
    );
    return Item ? fromPayoutItem(Item) : undefined;
  }

  async getAudit(id: string): Promise<AuditEvent[]> {
    const items = await readItemCollection(
      this.#doc,
      this.tableName,
      keys.payout(id).pk,
      'AUDIT#',
      fromAuditItem,
    );
    return items.flat();
  }

  async transition(write: TransitionWrite): Promise<Payout> {
    return this.#coalescer && coalescingGroup(write) ? this.#coalescer.add(write) : this.#commitOne(write);
  }

  /** Both items of a transition: the payout, conditional on the version read, and its audit event. */
  #transitionItems({ before, after, audit }: TransitionWrite): TransactItem[] {
    return [
      {
        Put: {
          TableName: this.tableName,
          Item: toPayoutItem(after),
          ConditionExpression: '#version = :version AND #status = :status',
          ExpressionAttributeNames: { '#version': 'version', '#status': 'status' },
          ExpressionAttributeValues: { ':version': before.version, ':status': before.status },
        },
      },
      {
        Put: {
          TableName: this.tableName,
          Item: toAuditItem([audit]),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ];
  }

  /**
   * Several transitions of one coalescing group in one TransactWriteItems: outcome records side by side, or
   * claims on one wallet's day with a single cap update for their sum (the cap item is hot: one update for many
   * claims instead of many colliding ones). When it is cancelled, a write whose own condition failed gets
   * ConcurrentModificationError, as alone it would, and the others are committed again; when the summed cap did
   * not fit, each claim is decided alone, so the cap takes exactly the claims that fit.
   */
  async #commitMany(writes: readonly TransitionWrite[], attempt = 0): Promise<Settled<Payout>[]> {
    if (writes.length === 1) return [await settled(this.#commitOne(writes[0] as TransitionWrite))];
    const items = writes.flatMap((write) => this.#transitionItems(write));
    const shared = writes[0] as TransitionWrite;
    const capIndex = shared.cap ? items.length : -1;
    if (shared.cap) {
      const deltaKobo = writes.reduce((sum, write) => sum + (write.cap?.deltaKobo ?? 0), 0);
      // The counter's condition passes when the counter does not exist yet (the day's first claim), so a sum
      // above the cap must never reach it: such a batch is decided claim by claim.
      if (shared.cap.limitKobo !== undefined && deltaKobo > shared.cap.limitKobo)
        return this.#commitEach(writes);
      items.push(this.#capUpdate({ ...shared.cap, deltaKobo }, writes.length));
    }
    try {
      await this.#doc.send(new TransactWriteCommand({ TransactItems: items }));
      return writes.map((write) => ({ ok: true, value: write.after }));
    } catch (error) {
      const reasons = cancellationReasons(error);
      // Not a cancellation (the network, a throttle): whether it committed is unknown, as for a single write.
      if (!reasons) return writes.map(() => ({ ok: false, error }));
      const results: Settled<Payout>[] = [];
      const again: number[] = [];
      writes.forEach((write, index) => {
        const own = reasons.slice(ITEMS_PER_TRANSITION * index, ITEMS_PER_TRANSITION * (index + 1));
        if (own.includes('ConditionalCheckFailed')) {
          results[index] = {
            ok: false,
            error: new ConcurrentModificationError('payout', write.before.id, { cause: error }),
          };
        } else again.push(index);
      });
      const rest = again.map((index) => writes[index] as TransitionWrite);
      let retried: Settled<Payout>[] = [];
      if (capIndex >= 0 && reasons[capIndex] === 'ConditionalCheckFailed') {
        retried = await this.#commitEach(rest);
      } else if (rest.length > 0) {
        const progressed = rest.length < writes.length;
        if (!progressed && attempt >= MAX_CONFLICT_RETRIES) {
          retried = rest.map((write) => ({
            ok: false,
            error: new ConcurrentModificationError('payout', write.before.id, { cause: error }),
          }));
        } else {
          if (!progressed) await jitteredPause(attempt, 100);
          retried = await this.#commitMany(rest, progressed ? attempt : attempt + 1);
        }
      }
      again.forEach((index, position) => {
        results[index] = retried[position] as Settled<Payout>;
      });
      return results;
    }
  }

  /** One by one, in order: claims on one counter must not race each other for the last of the cap. */
  async #commitEach(writes: readonly TransitionWrite[]): Promise<Settled<Payout>[]> {
    const results: Settled<Payout>[] = [];
    for (const write of writes) results.push(await settled(this.#commitOne(write)));
    return results;
  }

  async #commitOne(write: TransitionWrite): Promise<Payout> {
    const { before, after } = write;
    const items = this.#transitionItems(write);
    const capIndex = write.cap ? items.length : -1;
    if (write.cap) items.push(this.#capUpdate(write.cap));
    for (let attempt = 0; ; attempt++) {
      try {
        await this.#doc.send(new TransactWriteCommand({ TransactItems: items }));
        return after;
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (!reasons) throw error;
        if (capIndex >= 0 && reasons[capIndex] === 'ConditionalCheckFailed') {
          const message = `daily cap of ${write.cap?.capKey} on ${write.cap?.day} would be exceeded`;
          throw new DailyCapExceededError(message, { cause: error });
        }
        // Only a collision with another transaction (typically on the shared daily-cap counter) is worth
        // repeating: every condition held, and the write is still exactly the one decided on.
        const collidedOnly =
          !reasons.includes('ConditionalCheckFailed') && reasons.includes('TransactionConflict');
        if (!collidedOnly || attempt >= MAX_CONFLICT_RETRIES) {
          throw new ConcurrentModificationError('payout', before.id, { cause: error });
        }
        await jitteredPause(attempt, 100);
      }
    }
  }

  /** The cap counter's update for `reservations` claims together (a release counts none). */
  #capUpdate(cap: NonNullable<TransitionWrite['cap']>, reservations = 1): TransactItem {
    return capUpdateItem(this.tableName, cap, reservations);
  }

  async list(query: ListQuery): Promise<ListPage> {
    const index = query.status ? TableIndexes.byStatus : TableIndexes.byMonth;
    const from = query.from ?? '0000';
    const to = `${query.to ?? '9999'}\uffff`;
    // Without a status the listing walks month partitions backwards from `to` (or now) to `from`; without
    // `from` it stops after a year of empty months, so a young table is not read back to 2020 month by month.
    const firstMonth = monthOf(query.to ?? new Date().toISOString());
    const lastMonth = monthOf(query.from ?? '2020-01-01T00:00:00.000Z');
    const cursor = readPayoutCursor(query.cursor, query, { first: firstMonth, last: lastMonth });
    const fromCursor = cursor?.key !== undefined;
    let month = cursor?.month ?? (query.status ? undefined : firstMonth);
    let startKey: Record<string, unknown> | undefined = cursor?.key;
    const items: Payout[] = [];
    let scannedThisMonth = 0;
    let emptyMonths = 0;
    for (;;) {
      const partition = query.status ? keys.statusPartition(query.status) : keys.monthPartition(month ?? '');
      const input: QueryCommandInput = {
        TableName: this.tableName,
        IndexName: index.indexName,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
        ExpressionAttributeNames: { '#pk': index.partitionKey, '#sk': index.sortKey },
        ExpressionAttributeValues: { ':pk': partition, ':from': from, ':to': to },
        ScanIndexForward: false,
        Limit: query.limit - items.length,
        ExclusiveStartKey: startKey,
      };
      if (query.type) {
        input.FilterExpression = 'instruction.#type = :type';
        input.ExpressionAttributeNames = { ...input.ExpressionAttributeNames, '#type': 'type' };
        input.ExpressionAttributeValues = { ...input.ExpressionAttributeValues, ':type': query.type };
      }
      const page = await this.#doc.send(new QueryCommand(input)).catch((error: unknown) => {
        // The cursor's shape was checked; should DynamoDB still refuse its key, the cursor is what is wrong.
        if (fromCursor && startKey === cursor?.key && isStartKeyRejection(error)) {
          throw new InvalidCursorError('is not a cursor this listing returned', { cause: error });
        }
        throw error;
      });
      for (const item of page.Items ?? []) items.push(fromPayoutItem(item));
      scannedThisMonth += page.ScannedCount ?? 0;
      startKey = page.LastEvaluatedKey;
      if (startKey) {
        if (items.length >= query.limit) return { items, nextCursor: encodeCursor({ month, key: startKey }) };
        continue;
      }
      if (query.status || !month || month <= lastMonth) return { items };
      emptyMonths = scannedThisMonth === 0 ? emptyMonths + 1 : 0;
      scannedThisMonth = 0;
      if (!query.from && emptyMonths >= EMPTY_MONTHS_BEFORE_STOPPING) return { items };
      month = previousMonth(month);
      if (items.length >= query.limit) return { items, nextCursor: encodeCursor({ month }) };
    }
  }

  async due(queue: WorkQueue, dueBy: string, limit: number, after?: Payout): Promise<Payout[]> {
    const index = TableIndexes.workQueue;
    const afterWork = after && workQueueOf(after);
    const page = await this.#doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: index.indexName,
        KeyConditionExpression: '#pk = :pk AND #sk <= :dueBy',
        ExpressionAttributeNames: { '#pk': index.partitionKey, '#sk': index.sortKey },
        ExpressionAttributeValues: { ':pk': keys.workPartition(queue), ':dueBy': `${dueBy}#\uffff` },
        Limit: limit,
        ...(after &&
          afterWork && {
            ExclusiveStartKey: {
              ...keys.payout(after.id),
              [index.partitionKey]: keys.workPartition(afterWork.queue),
              [index.sortKey]: `${afterWork.dueAt}#${after.id}`,
            },
          }),
      }),
    );
    return (page.Items ?? []).map(fromPayoutItem);
  }

  /**
   * How many payouts have `status`, counting up to `limit`. A COUNT query reads at most 1 MB a page (about a
   * thousand payouts), so it goes on page by page until the limit or the end of the partition.
   */
  async countByStatus(
    status: PayoutStatus,
    limit: number,
    options: { maxPages?: number } = {},
  ): Promise<number> {
    const index = TableIndexes.byStatus;
    let counted = 0;
    let pages = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      pages++;
      const page = await this.#doc.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: index.indexName,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': index.partitionKey },
          ExpressionAttributeValues: { ':pk': keys.statusPartition(status) },
          Select: 'COUNT',
          Limit: limit - counted,
          ...(startKey && { ExclusiveStartKey: startKey }),
        }),
      );
      counted += page.Count ?? 0;
      startKey = page.LastEvaluatedKey;
    } while (startKey && counted < limit && pages < (options.maxPages ?? Number.POSITIVE_INFINITY));
    return counted;
  }

  async getControls(): Promise<Controls> {
    const { Item } = await this.#doc.send(
      new GetCommand({ TableName: this.tableName, Key: keys.controls(), ConsistentRead: true }),
    );
    return fromControlsItem(Item);
  }

  async setControls(controls: Controls): Promise<void> {
    await this.#doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.controls(), entity: 'controls', ...controls },
      }),
    );
  }

  async getCapUsage(capKey: string, day: string): Promise<number> {
    const { Item } = await this.#doc.send(
      new GetCommand({ TableName: this.tableName, Key: keys.dailyCap(capKey, day), ConsistentRead: true }),
    );
    return typeof Item?.totalKobo === 'number' ? Item.totalKobo : 0;
  }
}

const MAX_CONFLICT_RETRIES = 4;
const ITEMS_PER_TRANSITION = 2;
/** TransactWriteItems takes at most 100 items; 25 transitions keep a batch well inside that and 4 MB. */
const MAX_COALESCED_TRANSITIONS = 25;

/**
 * Which writes may share a transaction. Plain transitions (recording an outcome, reconciling) touch only their
 * own items. Claims share their wallet's cap counter, which a transaction can hold once, so only claims on
 * the same counter go together, with one update for their sum. Anything else (a cap release, say) goes alone.
 */
function coalescingGroup(write: TransitionWrite): string | undefined {
  if (!write.cap) return 'plain';
  if (write.cap.limitKobo !== undefined && write.cap.deltaKobo > 0) {
    return `claim:${write.cap.capKey}:${write.cap.day}:${write.cap.limitKobo}`;
  }
  return undefined;
}

function settled<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}
/** Without `from`, a listing stops walking back after this many consecutive months with no payout. */
const EMPTY_MONTHS_BEFORE_STOPPING = 12;

function cancellationReasons(error: unknown): (string | undefined)[] | undefined {
  if (!(error instanceof TransactionCanceledException)) return undefined;
  return (error.CancellationReasons ?? []).map((reason) => reason.Code);
}

function monthOf(iso: string): string {
  return iso.slice(0, 7);
}

function previousMonth(month: string): string {
  const [year, monthNumber] = month.split('-').map(Number);
  const date = new Date(Date.UTC(year ?? 1970, (monthNumber ?? 1) - 2, 1));
  return date.toISOString().slice(0, 7);
}
