import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DailyCapExceededError } from '../../controls/index.js';
import {
  DocumentClient,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '../../shared/document-client.js';
import { nextRequestSent } from '../../shared/dynamodb-client.js';
import { ConcurrentModificationError } from '../../shared/errors.js';
import { createWithIdempotencyKey, IdempotentCreateGuardError } from '../../shared/idempotent-create.js';
import { itemBytes } from '../../shared/item-size.js';
import { jitteredPause } from '../../shared/jitter.js';
import { dueWorkQuery, readItem } from '../../shared/table-reads.js';
import {
  cancellationReasons,
  commitRetryingConflicts,
  MAX_CONFLICT_RETRIES,
} from '../../shared/transaction-conflicts.js';
import { keys, TableIndexes, type WorkQueue } from '../../table/index.js';
import { CreationCompanionRefusedError } from '../errors.js';
import type { AuditEvent, Controls, Payout, PayoutStatus } from '../model.js';
import { carriedBy, payoutOf } from './carried-audit.js';
import {
  capHomeShard,
  capShardsOfDay,
  capShardTotals,
  capShareKobo,
  capUpdateItem,
  reserveOnCapShards,
  type TransactItem,
} from './control-items.js';
import {
  type CarriedAudit,
  carriedAuditOf,
  fromControlsItem,
  type StoredEvent,
  toAuditItem,
  toPayoutItem,
  toStoredEvent,
  workQueueOf,
} from './item-codec.js';
import type {
  CreateOutcome,
  CreationClaim,
  CreationCompanion,
  PayoutStore,
  TransitionWrite,
} from './payout-store.js';
import { type Settled, WriteCoalescer } from './write-coalescer.js';

/**
 * PayoutStore on one DynamoDB table. Creation and every transition are a single TransactWriteItems, so the
 * state change, its audit event and the cap counter commit together or not at all (the pause is read by the
 * engine once a claim committed: submit-payout.ts, `pausedNow`).
 */
export class DynamoDbPayoutStore implements PayoutStore {
  readonly #doc: DocumentClient;
  readonly #client: DynamoDBClient;
  readonly #coalescer: WriteCoalescer<PreparedTransition, Payout> | undefined;

  /** `coalesceWrites: false` commits every transition alone (one TransactWriteItems each). */
  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
    options: { coalesceWrites?: boolean } = {},
  ) {
    this.#client = client;
    this.#doc = DocumentClient.from(client);
    this.#coalescer =
      options.coalesceWrites === false
        ? undefined
        : new WriteCoalescer((writes) => this.#commitMany(writes), {
            maxBatch: MAX_COALESCED_TRANSITIONS,
            keyOf: ({ write }) => write.after.id,
            groupOf: ({ write }) => claimGroup(write) ?? 'moving',
          });
  }

  afterWriteSent(): Promise<void> {
    return nextRequestSent(this.#client);
  }

  /**
   * The creation's audit events (with a claim, both) ride on the idempotency key item, written in the same
   * transaction: an item of its own would cost 2 more write units (docs/data-model.md, "Write cost").
   */
  async create(
    payout: Payout,
    audit: AuditEvent,
    claim?: CreationClaim,
    companion?: CreationCompanion,
  ): Promise<CreateOutcome> {
    const events = claim ? [audit, claim.audit] : [audit];
    const carried: CarriedAudit = { events: [], onKeyItem: events.length };
    const createWith = (capItems: readonly TransactItem[]) =>
      createWithIdempotencyKey(this.#doc, {
        tableName: this.tableName,
        key: keys.idempotency(payout.origin, payout.idempotencyKey),
        ownerAttribute: 'payoutId',
        ownerId: payout.id,
        createdAt: payout.createdAt,
        keyAttributes: { ev: events.map(toStoredEvent) },
        items: [toPayoutItem(payout, carried)],
        guards: [...capItems, ...(companion?.items ?? [])],
      }).catch((error: unknown) => {
        if (!(error instanceof IdempotentCreateGuardError)) throw error;
        if (error.guardIndex < capItems.length)
          throw new DailyCapExceededError('the daily cap would be exceeded', { cause: error });
        const message = 'a write meant to commit with the creation failed its condition';
        throw new CreationCompanionRefusedError(message, { cause: error });
      });
    // A creation claimed at once reserves on its cap shards as any claim does (a refused one created nothing).
    const outcome = claim
      ? await reserveOnCapShards({
          doc: this.#doc,
          tableName: this.tableName,
          cap: claim.cap,
          homeId: payout.id,
          commit: createWith,
        })
      : await createWith([]);
    if (outcome.created) {
      carriedBy.set(payout, carried);
      return { created: true, payout };
    }
    const existing = await this.get(outcome.ownerId);
    if (!existing) throw new ConcurrentModificationError('payout', payout.id);
    return { created: false, existing };
  }

  async get(id: string): Promise<Payout | undefined> {
    const item = await this.#payoutItem(id);
    return item ? payoutOf(item) : undefined;
  }

  /** The stored payout item as it is now (consistent), undefined when there is none. */
  async #payoutItem(id: string): Promise<Record<string, unknown> | undefined> {
    return readItem(this.#doc, this.tableName, keys.payout(id));
  }

  /**
   * A claim goes with the claims of its cap counter (group commit); a plain transition that fits is one `PutItem`
   * (1 unit: in a shared transaction it would cost 2); one whose events move to an audit item is a transaction
   * anyway, so it goes with the others of its turn.
   */
  async transition(write: TransitionWrite): Promise<Payout> {
    const prepared = await this.#prepare(write);
    if (!write.cap && prepared.items.length === 1) return this.#putAlone(prepared);
    const coalescer = this.#coalescer;
    if (coalescer && (!write.cap || claimGroup(write))) return coalescer.add(prepared);
    return this.#commitOne(prepared);
  }

  /**
   * What a transition writes besides a cap change: the payout, conditional on the version read, carrying its new
   * audit event after the ones it already carries while the item stays under 1 KB (`ITEM_BYTES_BUDGET`), so
   * that a plain transition is one conditional Put. When the events no longer fit, they move, with the new one,
   * to an audit item in the same transaction, and the payout carries none. A change of the cap (a claim, or its
   * release) moves them always: it is a transaction anyway, where the audit item costs 2 units, and a payout that
   * carried its claim's event would have no room for its outcome's (a bare bank transfer decided is 740 B as
   * stored, its claim's event 119 B, its outcome's 196 B with the provider's transaction id), whose write would
   * then be a transaction of the payout and an audit item (4 units, and slower) instead of one `PutItem` (1).
   * Prepared once: the commits below write what this decided.
   */
  async #prepare(write: TransitionWrite): Promise<PreparedTransition> {
    const { before, after, audit } = write;
    const carried = carriedBy.get(before) ?? (await this.#carriedAuditAt(before));
    const events: [StoredEvent, ...StoredEvent[]] = [toStoredEvent(audit)];
    events.unshift(...carried.events);
    const condition = {
      ConditionExpression: '#version = :version AND #status = :status',
      ExpressionAttributeNames: { '#version': 'version', '#status': 'status' },
      ExpressionAttributeValues: { ':version': before.version, ':status': before.status },
    };
    if (!write.cap) {
      const embedded: CarriedAudit = { ...carried, events };
      const item = toPayoutItem(after, embedded);
      if (itemBytes(item) <= ITEM_BYTES_BUDGET) {
        return {
          write,
          carried: embedded,
          items: [{ Put: { TableName: this.tableName, Item: item, ...condition } }],
        };
      }
    }
    const moved: CarriedAudit = { events: [], onKeyItem: carried.onKeyItem, moved: true };
    return {
      write,
      carried: moved,
      items: [
        { Put: { TableName: this.tableName, Item: toPayoutItem(after, moved), ...condition } },
        {
          Put: {
            TableName: this.tableName,
            Item: toAuditItem(before.id, events),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
    };
  }

  /**
   * The events `before` carries when this store did not read or write it itself (a payout handed over from
   * elsewhere): read again, and only if the item is still exactly `before`.
   */
  async #carriedAuditAt(before: Payout): Promise<CarriedAudit> {
    const item = await this.#payoutItem(before.id);
    if (!item || item.version !== before.version || item.status !== before.status) {
      throw new ConcurrentModificationError('payout', before.id);
    }
    const carried = carriedAuditOf(item);
    carriedBy.set(before, carried);
    return carried;
  }

  /**
   * Several transitions of one coalescing group in one TransactWriteItems: transitions whose events move to an
   * audit item side by side, or claims on one wallet's day with a single cap update for their sum (the cap item
   * is hot: one update for many claims instead of many colliding ones). When it is cancelled, a write whose own
   * condition failed gets ConcurrentModificationError, as alone it would, and the others are committed again;
   * when the summed cap did not fit, each claim is decided alone, so the cap takes exactly the claims that fit.
   */
  async #commitMany(transitions: readonly PreparedTransition[], attempt = 0): Promise<Settled<Payout>[]> {
    if (transitions.length === 1)
      return [await settled(this.#commitOne(transitions[0] as PreparedTransition))];
    const writes = transitions.map(({ write }) => write);
    const items: TransactItem[] = [];
    const ranges = transitions.map((transition) => {
      const start = items.length;
      items.push(...transition.items);
      return [start, items.length] as const;
    });
    const shared = writes[0] as TransitionWrite;
    const capIndex = shared.cap ? items.length : -1;
    if (shared.cap) {
      const deltaKobo = writes.reduce((sum, write) => sum + (write.cap?.deltaKobo ?? 0), 0);
      // The batch reserves its sum on the first claim's shard; a sum above that shard's share can never fit
      // there, so such a batch is decided claim by claim (each finding room on the other shards if need be).
      const shards = await capShardsOfDay(this.#doc, this.tableName, shared.cap.day);
      const shard = capHomeShard(shared.after.id, shared.cap, shards);
      if (shared.cap.limitKobo !== undefined && deltaKobo > capShareKobo(shared.cap.limitKobo, shard, shards))
        return this.#commitEach(transitions);
      items.push(capUpdateItem(this.tableName, { ...shared.cap, deltaKobo }, writes.length, shard, shards));
    }
    try {
      await this.#doc.send(new TransactWriteCommand({ TransactItems: items }));
      return transitions.map(({ write, carried }) => {
        carriedBy.set(write.after, carried);
        return { ok: true, value: write.after };
      });
    } catch (error) {
      const reasons = cancellationReasons(error);
      // Not a cancellation (the network, a throttle): whether it committed is unknown, as for a single write.
      if (!reasons) return writes.map(() => ({ ok: false, error }));
      const results: Settled<Payout>[] = [];
      const again: number[] = [];
      writes.forEach((write, index) => {
        const own = reasons.slice(...(ranges[index] as readonly [number, number]));
        if (own.includes('ConditionalCheckFailed')) {
          results[index] = {
            ok: false,
            error: new ConcurrentModificationError('payout', write.before.id, { cause: error }),
          };
        } else again.push(index);
      });
      const rest = again.map((index) => transitions[index] as PreparedTransition);
      let retried: Settled<Payout>[] = [];
      if (capIndex >= 0 && reasons[capIndex] === 'ConditionalCheckFailed') {
        retried = await this.#commitEach(rest);
      } else if (rest.length > 0) {
        const progressed = rest.length < writes.length;
        if (!progressed && attempt >= MAX_CONFLICT_RETRIES) {
          retried = rest.map(({ write }) => ({
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

  /** A plain transition that fits as one conditional `PutItem` of the payout carrying its event. */
  async #putAlone(prepared: PreparedTransition): Promise<Payout> {
    const { before, after } = prepared.write;
    const put = prepared.items[0]?.Put;
    if (!put) throw new Error('a plain transition writes its payout');
    await this.#doc.send(new PutCommand(put)).catch((error: unknown) => {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      throw new ConcurrentModificationError('payout', before.id, { cause: error });
    });
    carriedBy.set(after, prepared.carried);
    return after;
  }

  /** One by one, in order: claims on one counter must not race each other for the last of the cap. */
  async #commitEach(transitions: readonly PreparedTransition[]): Promise<Settled<Payout>[]> {
    const results: Settled<Payout>[] = [];
    for (const transition of transitions) results.push(await settled(this.#commitOne(transition)));
    return results;
  }

  /**
   * A transition that is a transaction: a claim or a release with its cap change (on the cap's shards:
   * `reserveOnCapShards`), or events moving off.
   */
  async #commitOne(prepared: PreparedTransition): Promise<Payout> {
    const { write } = prepared;
    const { before, after } = write;
    const commitWith = (capItems: readonly TransactItem[]) => {
      const items = [...prepared.items, ...capItems];
      const capStart = prepared.items.length;
      return commitRetryingConflicts(
        async () => {
          await this.#doc.send(new TransactWriteCommand({ TransactItems: items }));
          carriedBy.set(after, prepared.carried);
          return after;
        },
        (reasons, error) => {
          if (reasons.slice(capStart).includes('ConditionalCheckFailed')) {
            const message = `daily cap of ${write.cap?.capKey} on ${write.cap?.day} would be exceeded`;
            throw new DailyCapExceededError(message, { cause: error });
          }
          throw new ConcurrentModificationError('payout', before.id, { cause: error });
        },
      );
    };
    if (!write.cap) return commitWith([]);
    return reserveOnCapShards({
      doc: this.#doc,
      tableName: this.tableName,
      cap: write.cap,
      homeId: after.id,
      commit: commitWith,
    });
  }

  /**
   * One page of the payouts in `status`, newest first (the by-status index), from where the previous page's
   * `lastKey` left off: what the reconciler walks to find ended leases. The API's listings (filters, months,
   * cursors) are `PayoutListing`'s.
   */
  async inStatus(
    status: PayoutStatus,
    limit: number,
    after?: Record<string, unknown>,
  ): Promise<{ items: Payout[]; lastKey?: Record<string, unknown> }> {
    const page = await this.#doc.send(
      new QueryCommand({
        ...this.#inStatusQuery(status),
        ScanIndexForward: false,
        Limit: limit,
        ...(after && { ExclusiveStartKey: after }),
      }),
    );
    return {
      items: (page.Items ?? []).map(payoutOf),
      ...(page.LastEvaluatedKey && { lastKey: page.LastEvaluatedKey }),
    };
  }

  /** The query of the payouts in `status` (gsi1, newest first unless told otherwise). */
  #inStatusQuery(status: PayoutStatus) {
    const index = TableIndexes.byStatus;
    return {
      TableName: this.tableName,
      IndexName: index.indexName,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': index.partitionKey },
      ExpressionAttributeValues: { ':pk': keys.statusPartition(status) },
    };
  }

  async due(queue: WorkQueue, dueBy: string, limit: number, after?: Payout): Promise<Payout[]> {
    const index = TableIndexes.workQueue;
    const afterWork = after && workQueueOf(after);
    const page = await this.#doc.send(
      new QueryCommand({
        ...dueWorkQuery(this.tableName, keys.workPartition(queue), dueBy, limit),
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
    return (page.Items ?? []).map(payoutOf);
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
    let counted = 0;
    let pages = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      pages++;
      const page = await this.#doc.send(
        new QueryCommand({
          ...this.#inStatusQuery(status),
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

  async getControls(options: { signal?: AbortSignal } = {}): Promise<Controls> {
    const item = await readItem(
      this.#doc,
      this.tableName,
      keys.controls(),
      options.signal ? { abortSignal: options.signal } : undefined,
    );
    return fromControlsItem(item);
  }

  async setControls(controls: Controls): Promise<void> {
    await this.#doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.controls(), entity: 'controls', ...controls },
      }),
    );
  }

  /** The day's exact total: the sum of the cap counter's shards. */
  async getCapUsage(capKey: string, day: string): Promise<number> {
    const totals = await capShardTotals(this.#doc, this.tableName, capKey, day);
    return totals.reduce((sum, total) => sum + total, 0);
  }
}

/**
 * A payout item carries audit events while it stays within this many bytes: under 1 KB, so each write of it
 * costs one unit in the table and in each index entry, with room for the approximation of number sizes.
 */
const ITEM_BYTES_BUDGET = 1000;

/** The items a transition writes (the payout; an audit item when its events moved off it) and what it then carries. */
interface PreparedTransition {
  readonly write: TransitionWrite;
  readonly items: TransactItem[];
  readonly carried: CarriedAudit;
}

/** TransactWriteItems takes at most 100 items; 25 transitions keep a batch well inside that and 4 MB. */
const MAX_COALESCED_TRANSITIONS = 25;

/**
 * The group a claim commits with: claims share their wallet's cap counter, which a transaction can hold once, so
 * only claims on the same counter go together, with one update for their sum. A cap release goes alone.
 */
function claimGroup(write: TransitionWrite): string | undefined {
  if (!write.cap) return undefined;
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
