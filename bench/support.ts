import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DeleteTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable } from '../lib/local/create-table.js';
import {
  type DynamoDbLocal,
  dynamoDbLocalDir,
  localAwsConfig,
  startDynamoDbLocal,
} from '../lib/local/dynamodb-local.js';
import { ProviderPayoutGateway } from '../lib/payouts/adapters/provider-payout-gateway.js';
import type { EngineConfig } from '../lib/payouts/config.js';
import type { CreatePayoutCommand } from '../lib/payouts/engine/create-payout.js';
import { PayoutEngine } from '../lib/payouts/payout-engine.js';
import type { CreatePayoutRequest } from '../lib/payouts/schemas.js';
import { DynamoDbPayoutStore } from '../lib/payouts/store/dynamodb-payout-store.js';
import { ProviderClient, StaticCredentialsSource } from '../lib/provider/index.js';
import { startSandbox } from '../lib/sandbox/index.js';
import { type Clock, systemClock } from '../lib/shared/clock.js';
import { createDynamoDbClient } from '../lib/shared/dynamodb-client.js';
import { createTableInput } from '../lib/table/index.js';
import { CapacityMeter, type MeteredItemWrite } from './capacity-meter.js';
import { type BenchProvider, inProcess, startSandboxProcess } from './sandbox-process.js';

export const projectRoot = resolve(import.meta.dirname, '..');

/** `BENCH_QUICK=1` shrinks every benchmark for a smoke run; the default run is the documented one. */
export const quick = process.env.BENCH_QUICK === '1';

/** Starts DynamoDB Local, installing it first into `.cache/` when missing. */
export async function startBenchDynamoDb(): Promise<DynamoDbLocal> {
  if (!existsSync(join(dynamoDbLocalDir, 'DynamoDBLocal.jar'))) {
    execFileSync(process.execPath, [join(projectRoot, 'scripts', 'install-dynamodb-local.mjs')], {
      stdio: 'inherit',
    });
  }
  return startDynamoDbLocal();
}

const running = new Set<DynamoDbLocal>();

/**
 * Runs `work` against its own fresh DynamoDB Local (loopback, in memory) and stops that process afterwards,
 * whatever happens. DynamoDB Local gets slower as a process accumulates tables and stream records, so no
 * benchmark (and no throughput case) inherits another's slowdown.
 */
export async function withFreshDynamoDb<T>(work: (endpoint: string) => Promise<T>): Promise<T> {
  const ddb = await startBenchDynamoDb();
  running.add(ddb);
  try {
    return await work(ddb.endpoint);
  } finally {
    running.delete(ddb);
    await ddb.stop();
  }
}

/** Stops every DynamoDB Local that `withFreshDynamoDb` started and has not stopped yet (on SIGINT). */
export async function stopAllBenchDynamoDb(): Promise<void> {
  const all = [...running];
  running.clear();
  await Promise.allSettled(all.map((ddb) => ddb.stop()));
}

let tableCounter = 0;

/** A DynamoDB client whose round trips and reported capacity units are counted, and a fresh table. */
export async function meteredTable(
  endpoint: string,
  prefix: string,
  options: { meterIndexes?: boolean; priceIndexesAs?: IndexProjection } = {},
): Promise<{
  client: DynamoDBClient;
  meter: CapacityMeter;
  tableName: string;
  store: DynamoDbPayoutStore;
  /** Destroys the clients (the table stays). */
  destroy(): void;
}> {
  const client = createDynamoDbClient({ endpoint, ...localAwsConfig });
  const tableName = `bench-${prefix}-${process.pid}-${++tableCounter}`;
  // Pricing index writes reads every written item before (and after an update) on a client of its own: exact,
  // but extra round trips, so only the cost benchmark asks for it, never a timed one.
  const images = options.meterIndexes ? createDynamoDbClient({ endpoint, ...localAwsConfig }) : undefined;
  const meter = new CapacityMeter(client, {
    ...(images && {
      indexes: {
        table: options.priceIndexesAs
          ? withProjection(createTableInput(tableName), options.priceIndexesAs)
          : createTableInput(tableName),
        images,
        ...(process.env.BENCH_TRACE_WRITES === '1' && { trace: traceWrite }),
      },
    }),
  });
  await ensureTable(client, tableName);
  return {
    client,
    meter,
    tableName,
    store: new DynamoDbPayoutStore(client, tableName),
    destroy() {
      client.destroy();
      images?.destroy();
    },
  };
}

type IndexProjection = 'ALL' | 'KEYS_ONLY';

/** The table's definition with every GSI projecting `projection` instead (a what-if for pricing and reads). */
export function withProjection<T extends ReturnType<typeof createTableInput>>(
  definition: T,
  projection: IndexProjection,
): T {
  return {
    ...definition,
    GlobalSecondaryIndexes: definition.GlobalSecondaryIndexes.map((index) => ({
      ...index,
      Projection: { ProjectionType: projection },
    })),
  };
}

/** `BENCH_TRACE_WRITES=1`: every metered item write with its size and index writes, for tuning the data model. */
function traceWrite(write: MeteredItemWrite): void {
  const indexes = write.indexes
    .filter((entry) => entry.kind !== 'none')
    .map((entry) => `${entry.index} ${entry.kind} ${entry.units}`)
    .join(', ');
  process.stderr.write(`${write.command} ${write.key} ${write.bytesAfter ?? '-'} B ${indexes}\n`);
}

/** The real engine over DynamoDB Local and the sandbox over loopback HTTP, as the Lambdas wire it. */
export interface EngineRig {
  readonly engine: PayoutEngine;
  readonly store: DynamoDbPayoutStore;
  readonly dynamoDb: DynamoDBClient;
  readonly meter: CapacityMeter;
  readonly sandbox: BenchProvider;
  readonly provider: ProviderClient;
  readonly tableName: string;
  /** Provider requests the sandbox has received, all paths together. */
  providerCalls(): Promise<number>;
  close(): Promise<void>;
}

export async function startEngineRig(
  endpoint: string,
  options: {
    prefix: string;
    latencyMs?: number;
    connections?: number;
    clock?: Clock;
    config?: Partial<EngineConfig>;
    /** Runs the sandbox in a process of its own (system clock only); see `startSandboxProcess`. */
    sandboxProcess?: boolean;
    /** Prices index writes too (see `meteredTable`); untimed benchmarks only. */
    meterIndexes?: boolean;
    /**
     * Prices the index writes as if every GSI projected this (the table itself keeps its design): a what-if
     * that holds for paths that write without reading an index, such as create and inline submit.
     */
    priceIndexesAs?: IndexProjection;
  },
): Promise<EngineRig> {
  const clock = options.clock ?? systemClock;
  const { client, meter, tableName, store, destroy } = await meteredTable(endpoint, options.prefix, {
    meterIndexes: options.meterIndexes ?? false,
    ...(options.priceIndexesAs && { priceIndexesAs: options.priceIndexesAs }),
  });
  const latencyMs = options.latencyMs ?? 0;
  const sandbox = options.sandboxProcess
    ? await startSandboxProcess({ latencyMs, projectRoot })
    : inProcess(await startSandbox({ latencyMs, now: () => clock.now() }));
  const provider = new ProviderClient({
    baseUrl: sandbox.url,
    credentials: new StaticCredentialsSource({ token: sandbox.token, pin: sandbox.pin }),
    timeouts: { requestMs: 10_000 },
    ...(options.connections !== undefined && { connections: options.connections }),
  });
  const engine = new PayoutEngine({
    store,
    gateway: new ProviderPayoutGateway(provider),
    clock,
    config: options.config ?? {},
  });
  return {
    engine,
    store,
    dynamoDb: client,
    meter,
    sandbox,
    provider,
    tableName,
    providerCalls: () => sandbox.requestCount(),
    async close() {
      await provider.close();
      await sandbox.close();
      // DynamoDB Local slows down as in-memory tables pile up; later benchmarks should not pay for earlier ones.
      await client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
      destroy();
    },
  };
}

/** A small bank transfer (the instant-payout endpoint), well under every cap and threshold. */
export function bankTransfer(overrides: Partial<CreatePayoutRequest> = {}): CreatePayoutRequest {
  return {
    type: 'bank_transfer',
    amount: 150,
    currency: 'NGN',
    narration: 'bench payout',
    beneficiary: { bankCode: '058', accountNumber: '0123456789', accountName: 'Ada Supplies' },
    ...overrides,
  } as CreatePayoutRequest;
}

export function createCommand(request: CreatePayoutRequest, idempotencyKey: string): CreatePayoutCommand {
  return { request, idempotencyKey, origin: 'api', actor: { id: 'bench', kind: 'user' } };
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` in flight. */
export async function forEachConcurrently(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/** The middle value of `values` (the mean of the two middle ones when their count is even). */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** The q-quantile (0 to 1) of `values`, interpolated between the two nearest ranks. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const low = sorted[below] ?? Number.NaN;
  const high = sorted[Math.min(below + 1, sorted.length - 1)] ?? low;
  return low + (high - low) * (position - below);
}

/** Rounds to `digits` decimals for tables and JSON. */
export function fixed(value: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

export type Row = Record<string, string | number | boolean>;

/** One benchmark's printed table and its JSON record. */
export interface BenchResult {
  readonly name: string;
  readonly title: string;
  readonly rows: readonly Row[];
  readonly notes: readonly string[];
}

/** A Markdown table, so the printed output can be pasted into the README as is. */
export function formatTable(result: BenchResult): string {
  const columns = [...new Set(result.rows.flatMap((row) => Object.keys(row)))];
  const cell = (value: string | number | boolean | undefined) => (value === undefined ? '' : String(value));
  const lines = [
    `### ${result.title}`,
    '',
    `| ${columns.join(' | ')} |`,
    `| ${columns.map((column) => (result.rows.some((row) => typeof row[column] === 'number') ? '---:' : '---')).join(' | ')} |`,
    ...result.rows.map((row) => `| ${columns.map((column) => cell(row[column])).join(' | ')} |`),
  ];
  if (result.notes.length > 0) lines.push('', ...result.notes.map((note) => `- ${note}`));
  return lines.join('\n');
}
