import { performance } from 'node:perf_hooks';
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { type IndexWrite, type Item, indexWrites, type TableDefinition } from './index-write-units.js';
import { type AttributeValue, itemBytes } from './item-size.js';

export { itemBytes } from './item-size.js';

/** What a DynamoDB response reports as consumed, in the shape all operations share. */
interface ConsumedCapacityLike {
  readonly CapacityUnits?: number;
  readonly ReadCapacityUnits?: number;
  readonly WriteCapacityUnits?: number;
}

/** Totals since the meter was created; `diff` two snapshots to measure a stretch of work. */
export interface CapacitySnapshot {
  /** HTTP requests to DynamoDB (every attempt, retries included). */
  readonly roundTrips: number;
  /** Responses that reported no ConsumedCapacity (errors, e.g. a cancelled transaction). */
  readonly unreported: number;
  readonly readUnits: number;
  readonly writeUnits: number;
  /** The part of `writeUnits` reported for TransactWriteItems (DynamoDB Local reports one item per transaction). */
  readonly transactWriteUnits: number;
  /**
   * Write units by AWS's published rules, computed from the requests: transactional writes 2 per KB per item
   * (Put from the item's size; Update, Delete, ConditionCheck taken as one KB: they touch small items), other
   * writes 1 per KB per item (`singleWriteUnits`). Base table only: see `indexWriteUnits`.
   */
  readonly awsWriteUnits: number;
  /**
   * Write units the global secondary indexes cost by AWS's rules (see `indexWrites`), computed from each written
   * item's image before and after the write; 0 unless the meter was given the table definition.
   */
  readonly indexWriteUnits: number;
  /** `indexWriteUnits` per index name. */
  readonly indexWriteUnitsByIndex: Readonly<Record<string, number>>;
  /** Wall time spent in TransactWriteItems round trips, summed (concurrent calls overlap). */
  readonly transactCallMs: number;
  /** Round trips per operation name, e.g. `TransactWriteItemsCommand`. */
  readonly byCommand: Readonly<Record<string, number>>;
}

const empty: CapacitySnapshot = {
  roundTrips: 0,
  unreported: 0,
  readUnits: 0,
  writeUnits: 0,
  transactWriteUnits: 0,
  awsWriteUnits: 0,
  indexWriteUnits: 0,
  indexWriteUnitsByIndex: {},
  transactCallMs: 0,
  byCommand: {},
};

/** What the meter needs to price index writes: the table's definition and a client it reads item images with. */
export interface IndexMetering {
  /** The CreateTable input (its KeySchema and GlobalSecondaryIndexes), e.g. `createTableInput(name)`. */
  readonly table: TableDefinition;
  /**
   * A client without this meter, for the consistent GetItem of each written item before the write (and after an
   * Update, whose new image the request does not hold). These reads are the meter's own and are not counted.
   */
  readonly images: DynamoDBClient;
  /** Called for every metered item write, e.g. to print item sizes while tuning the data model. */
  readonly trace?: (write: MeteredItemWrite) => void;
}

/** One item written, as the meter priced it. */
export interface MeteredItemWrite {
  readonly command: string;
  readonly key: string;
  readonly bytesAfter: number | undefined;
  readonly indexes: readonly IndexWrite[];
}

/**
 * Counts DynamoDB round trips and the capacity units DynamoDB reports, without touching the store: SDK
 * middleware asks every request for `ReturnConsumedCapacity: 'TOTAL'` and sums what comes back
 * (an array for TransactWriteItems, an object for the rest).
 *
 * @example
 * const meter = new CapacityMeter(client);
 * const before = meter.snapshot();
 * await store.get('p-1');
 * const used = CapacityMeter.diff(before, meter.snapshot()); // { roundTrips: 1, readUnits: 1, ... }
 */
export class CapacityMeter {
  #totals = {
    roundTrips: 0,
    unreported: 0,
    readUnits: 0,
    writeUnits: 0,
    transactWriteUnits: 0,
    awsWriteUnits: 0,
    indexWriteUnits: 0,
    transactCallMs: 0,
  };
  #byCommand: Record<string, number> = {};
  #byIndex: Record<string, number> = {};
  readonly #indexes: IndexMetering | undefined;
  /** When set, only requests whose input this predicate accepts are counted. */
  filter: ((commandName: string, input: Record<string, unknown>) => boolean) | undefined;

  constructor(client: DynamoDBClient, options: { indexes?: IndexMetering } = {}) {
    this.#indexes = options.indexes;
    client.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as Record<string, unknown>;
        if (input.ReturnConsumedCapacity === undefined) input.ReturnConsumedCapacity = 'TOTAL';
        return next(args);
      },
      { step: 'initialize', name: 'benchReturnConsumedCapacity', priority: 'high' },
    );
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const commandName = String(context.commandName ?? 'unknown');
        const counted = this.filter?.(commandName, args.input as Record<string, unknown>) ?? true;
        if (counted) {
          this.#totals.roundTrips++;
          this.#byCommand[commandName] = (this.#byCommand[commandName] ?? 0) + 1;
        }
        const writes = counted && this.#indexes ? await this.#readBefore(commandName, args.input) : [];
        const started = performance.now();
        const result = await next(args)
          .catch((error: unknown) => {
            if (counted) this.#totals.unreported++;
            throw error;
          })
          .finally(() => {
            if (counted && commandName === 'TransactWriteItemsCommand')
              this.#totals.transactCallMs += performance.now() - started;
          });
        if (counted) {
          this.#add(commandName, (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity);
          if (commandName === 'TransactWriteItemsCommand')
            this.#totals.awsWriteUnits += transactionalWriteUnits(args.input as TransactInput);
          else this.#totals.awsWriteUnits += singleWriteUnits(commandName, args.input as WriteInput);
          await this.#priceIndexWrites(commandName, writes);
        }
        return result;
      },
      { step: 'deserialize', name: 'benchCountCapacity', priority: 'high' },
    );
  }

  static readonly empty: CapacitySnapshot = empty;

  snapshot(): CapacitySnapshot {
    return {
      ...this.#totals,
      byCommand: { ...this.#byCommand },
      indexWriteUnitsByIndex: { ...this.#byIndex },
    };
  }

  /** The items a write request touches, each with its image before the request. */
  async #readBefore(commandName: string, input: unknown): Promise<PendingItemWrite[]> {
    const targets = itemWritesOf(commandName, input as WriteInput);
    for (const target of targets) target.before = await this.#readImage(target.tableName, target.key);
    return targets;
  }

  async #priceIndexWrites(commandName: string, writes: readonly PendingItemWrite[]): Promise<void> {
    const metering = this.#indexes;
    if (!metering) return;
    for (const write of writes) {
      const after =
        write.kind === 'put'
          ? write.item
          : write.kind === 'delete'
            ? undefined
            : await this.#readImage(write.tableName, write.key);
      const priced = indexWrites(metering.table, write.before, after);
      for (const { index, units } of priced) {
        this.#totals.indexWriteUnits += units;
        this.#byIndex[index] = (this.#byIndex[index] ?? 0) + units;
      }
      metering.trace?.({
        command: commandName,
        key: Object.values(write.key)
          .map((value) => value.S ?? value.N ?? '')
          .join('|'),
        bytesAfter: after && itemBytes(after),
        indexes: priced,
      });
    }
  }

  async #readImage(tableName: string, key: Item): Promise<Item | undefined> {
    const images = this.#indexes?.images;
    if (!images) return undefined;
    const { Item } = await images.send(
      new GetItemCommand({ TableName: tableName, Key: key as never, ConsistentRead: true }),
    );
    return Item as Item | undefined;
  }

  /** What happened between two snapshots. */
  static diff(before: CapacitySnapshot, after: CapacitySnapshot): CapacitySnapshot {
    const byCommand: Record<string, number> = {};
    for (const [name, count] of Object.entries(after.byCommand)) {
      const delta = count - (before.byCommand[name] ?? 0);
      if (delta !== 0) byCommand[name] = delta;
    }
    return {
      roundTrips: after.roundTrips - before.roundTrips,
      unreported: after.unreported - before.unreported,
      readUnits: round(after.readUnits - before.readUnits),
      writeUnits: round(after.writeUnits - before.writeUnits),
      transactWriteUnits: round(after.transactWriteUnits - before.transactWriteUnits),
      awsWriteUnits: round(after.awsWriteUnits - before.awsWriteUnits),
      indexWriteUnits: round(after.indexWriteUnits - before.indexWriteUnits),
      indexWriteUnitsByIndex: Object.fromEntries(
        Object.entries(after.indexWriteUnitsByIndex).map(([index, units]) => [
          index,
          round(units - (before.indexWriteUnitsByIndex[index] ?? 0)),
        ]),
      ),
      transactCallMs: round(after.transactCallMs - before.transactCallMs),
      byCommand,
    };
  }

  #add(commandName: string, consumed: unknown): void {
    if (consumed === undefined || consumed === null) {
      this.#totals.unreported++;
      return;
    }
    // A TOTAL answer carries only CapacityUnits for single-item operations, so the operation says which kind.
    let units = 0;
    for (const entry of (Array.isArray(consumed) ? consumed : [consumed]) as ConsumedCapacityLike[]) {
      units += entry.CapacityUnits ?? (entry.ReadCapacityUnits ?? 0) + (entry.WriteCapacityUnits ?? 0);
    }
    if (READ_COMMANDS.has(commandName)) this.#totals.readUnits += units;
    else this.#totals.writeUnits += units;
    if (commandName === 'TransactWriteItemsCommand') this.#totals.transactWriteUnits += units;
  }
}

/** A TransactWriteItems input as it reaches the wire (items marshalled to AttributeValues). */
interface TransactInput {
  readonly TransactItems?: readonly {
    readonly Put?: { readonly Item?: Record<string, AttributeValue> };
    readonly Update?: unknown;
    readonly Delete?: unknown;
    readonly ConditionCheck?: unknown;
  }[];
}

const KB = 1024;

/** 2 WCU per KB (rounded up) per item, as AWS bills transactional writes. */
export function transactionalWriteUnits(input: TransactInput): number {
  let units = 0;
  for (const item of input.TransactItems ?? []) units += 2 * startedKbOf(item.Put?.Item);
  return units;
}

/**
 * 1 WCU per KB (rounded up) per item, as AWS bills a PutItem, UpdateItem, DeleteItem or each item of a
 * BatchWriteItem: Put from the item's size, Update and Delete taken as one KB (they touch small items). Base table
 * only: DynamoDB Local's own figure for these (ReturnConsumedCapacity TOTAL) includes the index writes, which
 * `indexWriteUnits` prices on their own.
 */
export function singleWriteUnits(commandName: string, input: WriteInput): number {
  return itemWritesOf(commandName, input).reduce((sum, write) => sum + startedKbOf(write.item), 0);
}

/** The KB a write of `item` is billed by, started KB counted whole; an Update, Delete or check (no item) as 1. */
function startedKbOf(item: Item | undefined): number {
  return Math.max(1, Math.ceil((item ? itemBytes(item) : KB) / KB));
}

/** Every write request shape the meter prices index writes for (marshalled, as on the wire). */
interface WriteInput {
  readonly TableName?: string;
  readonly Item?: Item;
  readonly Key?: Item;
  readonly TransactItems?: readonly {
    readonly Put?: { readonly TableName?: string; readonly Item?: Item };
    readonly Update?: { readonly TableName?: string; readonly Key?: Item };
    readonly Delete?: { readonly TableName?: string; readonly Key?: Item };
  }[];
  readonly RequestItems?: Record<
    string,
    readonly {
      readonly PutRequest?: { readonly Item?: Item };
      readonly DeleteRequest?: { readonly Key?: Item };
    }[]
  >;
}

interface PendingItemWrite {
  readonly tableName: string;
  readonly key: Item;
  readonly kind: 'put' | 'update' | 'delete';
  readonly item?: Item;
  before?: Item;
}

/** The table's key attributes of an item: pk and sk in this project (the meter reads images by them). */
function keyOf(item: Item): Item {
  const key: Item = {};
  for (const name of ['pk', 'sk']) if (item[name]) key[name] = item[name] as AttributeValue;
  return key;
}

function itemWritesOf(commandName: string, input: WriteInput): PendingItemWrite[] {
  const table = input.TableName ?? '';
  switch (commandName) {
    case 'PutItemCommand':
      return input.Item ? [{ tableName: table, key: keyOf(input.Item), kind: 'put', item: input.Item }] : [];
    case 'UpdateItemCommand':
      return input.Key ? [{ tableName: table, key: input.Key, kind: 'update' }] : [];
    case 'DeleteItemCommand':
      return input.Key ? [{ tableName: table, key: input.Key, kind: 'delete' }] : [];
    case 'TransactWriteItemsCommand':
      return (input.TransactItems ?? []).flatMap((action): PendingItemWrite[] => {
        if (action.Put?.Item) {
          const { Item, TableName = '' } = action.Put;
          return [{ tableName: TableName, key: keyOf(Item), kind: 'put', item: Item }];
        }
        if (action.Update?.Key)
          return [{ tableName: action.Update.TableName ?? '', key: action.Update.Key, kind: 'update' }];
        if (action.Delete?.Key)
          return [{ tableName: action.Delete.TableName ?? '', key: action.Delete.Key, kind: 'delete' }];
        return [];
      });
    case 'BatchWriteItemCommand':
      return Object.entries(input.RequestItems ?? {}).flatMap(([tableName, requests]) =>
        requests.flatMap((request): PendingItemWrite[] => {
          if (request.PutRequest?.Item) {
            const item = request.PutRequest.Item;
            return [{ tableName, key: keyOf(item), kind: 'put', item }];
          }
          if (request.DeleteRequest?.Key)
            return [{ tableName, key: request.DeleteRequest.Key, kind: 'delete' }];
          return [];
        }),
      );
    default:
      return [];
  }
}

const READ_COMMANDS = new Set([
  'GetItemCommand',
  'QueryCommand',
  'ScanCommand',
  'BatchGetItemCommand',
  'TransactGetItemsCommand',
]);

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
