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
  /** The part of `writeUnits` reported for TransactWriteItems (DynamoDB Local bills these at 4 per KB). */
  readonly transactWriteUnits: number;
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
        if (counted)
          this.#add(commandName, (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity);
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
