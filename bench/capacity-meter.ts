import { performance } from 'node:perf_hooks';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

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
   * writes DynamoDB Local's figure. Base table only: each GSI the item is written to adds about 1 per KB.
   */
  readonly awsWriteUnits: number;
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
  transactCallMs: 0,
  byCommand: {},
};

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
    transactCallMs: 0,
  };
  #byCommand: Record<string, number> = {};
  /** When set, only requests whose input this predicate accepts are counted. */
  filter: ((commandName: string, input: Record<string, unknown>) => boolean) | undefined;

  constructor(client: DynamoDBClient) {
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
        }
        return result;
      },
      { step: 'deserialize', name: 'benchCountCapacity', priority: 'high' },
    );
  }

  static readonly empty: CapacitySnapshot = empty;

  snapshot(): CapacitySnapshot {
    return { ...this.#totals, byCommand: { ...this.#byCommand } };
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
    else if (!READ_COMMANDS.has(commandName)) this.#totals.awsWriteUnits += units;
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

type AttributeValue = {
  readonly S?: string;
  readonly N?: string;
  readonly B?: Uint8Array;
  readonly BOOL?: boolean;
  readonly NULL?: boolean;
  readonly M?: Record<string, AttributeValue>;
  readonly L?: readonly AttributeValue[];
  readonly SS?: readonly string[];
  readonly NS?: readonly string[];
};

const KB = 1024;

/** 2 WCU per KB (rounded up) per item, as AWS bills transactional writes. */
export function transactionalWriteUnits(input: TransactInput): number {
  let units = 0;
  for (const item of input.TransactItems ?? []) {
    const bytes = item.Put?.Item ? itemBytes(item.Put.Item) : KB;
    units += 2 * Math.max(1, Math.ceil(bytes / KB));
  }
  return units;
}

/** An item's size by DynamoDB's rules: attribute names plus values (numbers ~1 byte per 2 digits + 1). */
export function itemBytes(item: Record<string, AttributeValue>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) bytes += Buffer.byteLength(name) + valueBytes(value);
  return bytes;
}

function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return Math.ceil(value.N.replace(/^-|\.|e.*$/gi, '').length / 2) + 1;
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.M !== undefined) return 3 + itemBytes(value.M);
  if (value.L !== undefined) return 3 + value.L.reduce((sum, element) => sum + 1 + valueBytes(element), 0);
  if (value.SS !== undefined) return value.SS.reduce((sum, element) => sum + Buffer.byteLength(element), 0);
  if (value.NS !== undefined)
    return value.NS.reduce((sum, element) => sum + Math.ceil(element.length / 2) + 1, 0);
  return 0;
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
