/**
 * Write units per payout on every deployed path that sends money, priced by AWS's rules (bench/capacity-meter.ts:
 * 1 WCU per started KB per item written, 2 in a transaction; GSI writes from the table's definition and each
 * item's images), broken down by the item written, so a path above the target shows where its writes go.
 *
 * Each path runs against a table of its own through the runtime the functions build (lib/runtime/runtime.ts) and
 * their job functions (lib/jobs/): the sweeper's tick, the submission workers' batch (delivered by the local SQS
 * stand-in, in this process, so one meter sees every DynamoDB request), the settlement poll. The provider is the
 * sandbox on 127.0.0.1. The pacer (the provider rate limiter shared by the workers) is priced apart.
 */
import type { Context, SQSEvent } from 'aws-lambda';
import { pollSettlements } from '../lib/jobs/poll-settlements.js';
import { workSubmissionQueue } from '../lib/jobs/submit-payouts.js';
import { sweepDuePayouts } from '../lib/jobs/sweep-due-payouts.js';
import { ensureTable } from '../lib/local/create-table.js';
import { localAwsConfig } from '../lib/local/dynamodb-local.js';
import { stageConfigOf, startLocalSubmissionWorkers } from '../lib/local/submission-workers.js';
import { createAndSubmit } from '../lib/payouts/engine/create-and-submit.js';
import { PayoutStatus } from '../lib/payouts/model.js';
import { payoutEngineOf } from '../lib/runtime/engines.js';
import { recurrencesOf } from '../lib/runtime/recurrences.js';
import { createRuntime, type Runtime } from '../lib/runtime/runtime.js';
import { addSettlement, startSandbox } from '../lib/sandbox/index.js';
import { ManualClock } from '../lib/shared/clock.js';
import { createDynamoDbClient } from '../lib/shared/dynamodb-client.js';
import { silentLogger } from '../lib/shared/logger.js';
import { createTableInput } from '../lib/table/index.js';
import { CapacityMeter, type CapacitySnapshot, itemBytes } from './capacity-meter.js';
import type { Item } from './index-write-units.js';
import { bankTransfer, createCommand, fixed } from './support.js';

/** The deployed paths a payout is sent by. */
export const COST_PATHS = [
  'apiInline',
  'workerFromQueue',
  'scheduledRelease',
  'recurringOccurrence',
  'settlement',
] as const;
export type CostPath = (typeof COST_PATHS)[number];

/** One path's write units per payout sent. */
export interface PathCost {
  readonly base: number;
  readonly indexes: number;
  readonly total: number;
  /** The pacer's (provider rate limiter's) writes per payout, and their WCU, not in `total`. */
  readonly pacerWrites: number;
  readonly pacerWcu: number;
  /** Where `total` goes, per payout: by the item written, its writes, their base WCU and their index WCU. */
  readonly byItem: Readonly<Record<string, ItemCost>>;
}

/** One kind of item's writes per payout. */
export interface ItemCost {
  readonly writes: number;
  readonly base: number;
  readonly indexes: number;
}

interface ItemWrites {
  writes: number;
  wcu: number;
}

const KB = 1024;
const units = (item: Item | undefined) => Math.max(1, Math.ceil((item ? itemBytes(item) : KB) / KB));

/** What kind of item a key names (table-design.ts and the other stores' keys). */
function itemKind(pk: string, sk: string): string {
  if (pk.startsWith('PAYOUT#')) return sk.startsWith('AUDIT#') ? 'audit item' : 'payout';
  if (pk.startsWith('IDEMPOTENCY#')) return 'idempotency key';
  if (pk.startsWith('CAP#')) return 'cap counter';
  if (pk.startsWith('RATELIMIT#')) return 'pacer';
  return pk.split('#')[0]?.toLowerCase() || 'other';
}

type Marshalled = { pk?: { S?: string }; sk?: { S?: string } };
const kindOfKey = (key: Marshalled | undefined) => itemKind(key?.pk?.S ?? '', key?.sk?.S ?? '');

/**
 * Base write units by item kind, by the same rules as the meter (a Put by its size; an Update, Delete or
 * ConditionCheck as 1 KB; doubled in a transaction), from each write request as it goes on the wire.
 */
class WritesByItem {
  readonly base = new Map<string, ItemWrites>();
  readonly indexes = new Map<string, number>();

  constructor(client: Runtime['dynamoDb']) {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        this.#count(String(context.commandName ?? ''), args.input as WriteRequest);
        return result;
      },
      { step: 'deserialize', name: 'benchWritesByItem', priority: 'low' },
    );
  }

  addIndexWrite(key: string, indexUnits: number): void {
    const [pk = '', sk = ''] = key.split('|');
    const kind = itemKind(pk, sk);
    this.indexes.set(kind, (this.indexes.get(kind) ?? 0) + indexUnits);
  }

  #add(kind: string, wcu: number): void {
    const writes = this.base.get(kind) ?? { writes: 0, wcu: 0 };
    writes.writes++;
    writes.wcu += wcu;
    this.base.set(kind, writes);
  }

  #count(command: string, input: WriteRequest): void {
    if (command === 'TransactWriteItemsCommand') {
      for (const item of input.TransactItems ?? []) {
        const key = item.Put?.Item ?? item.Update?.Key ?? item.Delete?.Key ?? item.ConditionCheck?.Key;
        const kind = item.ConditionCheck ? `${kindOfKey(key)} (check)` : kindOfKey(key);
        this.#add(kind, 2 * units(item.Put?.Item));
      }
    } else if (command === 'PutItemCommand') this.#add(kindOfKey(input.Item), units(input.Item));
    else if (command === 'UpdateItemCommand' || command === 'DeleteItemCommand')
      this.#add(kindOfKey(input.Key), 1);
    else if (command === 'BatchWriteItemCommand') {
      for (const requests of Object.values(input.RequestItems ?? {})) {
        for (const request of requests) {
          const item = request.PutRequest?.Item;
          this.#add(kindOfKey(item ?? request.DeleteRequest?.Key), units(item));
        }
      }
    }
  }
}

interface WriteRequest {
  readonly Item?: Item & Marshalled;
  readonly Key?: Item & Marshalled;
  readonly TransactItems?: readonly {
    readonly Put?: { readonly Item?: Item & Marshalled };
    readonly Update?: { readonly Key?: Marshalled };
    readonly Delete?: { readonly Key?: Marshalled };
    readonly ConditionCheck?: { readonly Key?: Marshalled };
  }[];
  readonly RequestItems?: Record<
    string,
    readonly { PutRequest?: { Item?: Item & Marshalled }; DeleteRequest?: { Key?: Marshalled } }[]
  >;
}

/** A runtime as the functions build it, on a table of its own, metered; the workers' queue delivering in-process. */
async function pathRig(endpoint: string, name: string, clock: ManualClock) {
  const sandbox = await startSandbox({});
  const tableName = `bench-cost-${name}-${process.pid}`;
  const config = stageConfigOf('dev');
  let runtime: Runtime | undefined;
  const workers = await startLocalSubmissionWorkers({
    config,
    loadWorker: async () => (event: SQSEvent, context: Context) =>
      workSubmissionQueue(runtime as Runtime, event, context.getRemainingTimeInMillis()),
    logger: silentLogger,
    pollIntervalMs: 60_000,
  });
  runtime = createRuntime(
    {
      TABLE_NAME: tableName,
      DYNAMODB_ENDPOINT: endpoint,
      PROVIDER_BASE_URL: sandbox.url,
      PROVIDER_TOKEN: sandbox.token,
      PROVIDER_PIN: sandbox.pin,
      SETTLEMENT_DESTINATION_BANK_CODE: '058',
      SETTLEMENT_DESTINATION_ACCOUNT_NUMBER: '0123456789',
      SETTLEMENT_DESTINATION_ACCOUNT_NAME: 'Demo Merchant Ltd',
      SETTLEMENT_MIN_KOBO: '100',
      // The stage's queue, per-tick maximum and provider rate limit R (so the workers pace through the pacer).
      ...workers.environment,
    },
    { logger: silentLogger, clock },
  );
  await ensureTable(runtime.dynamoDb, tableName);
  const images = createDynamoDbClient({ endpoint, ...localAwsConfig });
  const byItem = new WritesByItem(runtime.dynamoDb);
  const meter = new CapacityMeter(runtime.dynamoDb, {
    indexes: {
      table: createTableInput(tableName),
      images,
      trace: (write) => {
        const indexUnits = write.indexes.reduce((sum, entry) => sum + entry.units, 0);
        if (indexUnits > 0) byItem.addIndexWrite(write.key, indexUnits);
      },
    },
  });
  const current = runtime;
  return {
    runtime: current,
    sandbox,
    workers,
    meter,
    byItem,
    sent: () => sandbox.stats().requests['/settlement/instant/payout'] ?? 0,
    tick: () => sweepDuePayouts(current, 120_000),
    async close() {
      await workers.stop();
      await current.close();
      images.destroy();
      await sandbox.close();
    },
  };
}
type PathRig = Awaited<ReturnType<typeof pathRig>>;

const START = '2026-03-02T08:00:00.000Z';

/** Drives one path for `count` payouts and answers its write units per payout sent. */
async function measurePath(
  endpoint: string,
  path: CostPath,
  count: number,
): Promise<PathCost & { providerCalls: number; snapshot: CapacitySnapshot }> {
  const clock = new ManualClock(START);
  const rig = await pathRig(endpoint, path, clock);
  try {
    // Untimed set-up that is not the path's (the settlement poll's first run records its cutoff).
    if (path === 'settlement') await pollSettlements(rig.runtime, 600_000);
    await rig.workers.queue.idle();
    let callsBefore = 0;
    let before = CapacityMeter.empty;
    let baseBefore = new Map<string, ItemWrites>();
    let indexesBefore = new Map<string, number>();
    const startMeasuring = () => {
      callsBefore = rig.sent();
      before = rig.meter.snapshot();
      baseBefore = new Map([...rig.byItem.base].map(([kind, writes]) => [kind, { ...writes }]));
      indexesBefore = new Map(rig.byItem.indexes);
    };
    await drive(rig, path, count, clock, startMeasuring);
    await rig.workers.queue.idle();
    const used = CapacityMeter.diff(before, rig.meter.snapshot());
    const providerCalls = rig.sent() - callsBefore;
    const succeeded = await rig.runtime.store.countByStatus(PayoutStatus.Succeeded, count + 100);
    if (providerCalls !== count || succeeded < count)
      throw new Error(`${path}: ${providerCalls} provider calls, ${succeeded} succeeded, expected ${count}`);
    const per = (value: number) => fixed(value / count, 2);
    const kinds = new Set([...rig.byItem.base.keys(), ...rig.byItem.indexes.keys()]);
    const byItem: Record<string, ItemCost> = {};
    for (const kind of kinds) {
      const now = rig.byItem.base.get(kind) ?? { writes: 0, wcu: 0 };
      const then = baseBefore.get(kind) ?? { writes: 0, wcu: 0 };
      const indexWcu = (rig.byItem.indexes.get(kind) ?? 0) - (indexesBefore.get(kind) ?? 0);
      if (now.writes === then.writes && indexWcu === 0) continue;
      byItem[kind] = {
        writes: per(now.writes - then.writes),
        base: per(now.wcu - then.wcu),
        indexes: per(indexWcu),
      };
    }
    const pacer = byItem.pacer ? byItem.pacer.base + byItem.pacer.indexes : 0;
    const pacerWrites = byItem.pacer?.writes ?? 0;
    delete byItem.pacer;
    // The base from the writes by item (the same rules as the meter's, from the same requests), the pacer's
    // left out: the meter's own total, less the pacer's figure from here, came out below the items' sum on the
    // paths the pacer runs on (17.76 reported where the items summed to 19.16 on the worker path).
    const base = Object.values(byItem).reduce((sum, item) => sum + item.base, 0);
    return {
      base: fixed(base, 2),
      indexes: per(used.indexWriteUnits),
      total: fixed(base + per(used.indexWriteUnits), 2),
      pacerWcu: pacer,
      pacerWrites,
      byItem,
      providerCalls,
      snapshot: used,
    };
  } finally {
    await rig.close();
  }
}

/** Runs the path; what comes before `startMeasuring` is set-up that is not the payout's (a recurring rule's creation). */
async function drive(
  rig: PathRig,
  path: CostPath,
  count: number,
  clock: ManualClock,
  startMeasuring: () => void,
): Promise<void> {
  const engine = payoutEngineOf(rig.runtime);
  const actor = { id: 'bench', kind: 'user' as const };
  switch (path) {
    case 'apiInline':
      startMeasuring();
      // POST /payouts: created already claimed, the provider called in the request.
      for (let i = 0; i < count; i++) {
        const { submitted } = await createAndSubmit(
          engine.ctx,
          createCommand(bankTransfer(), `cost-api-${i}`),
        );
        if (!submitted) throw new Error('apiInline: not submitted inline');
      }
      return;
    case 'workerFromQueue':
      startMeasuring();
      // Created pending (a fallback of the API, a bulk item), found by the sweeper's tick, sent by the workers.
      for (let i = 0; i < count; i++) await engine.create(createCommand(bankTransfer(), `cost-q-${i}`));
      await rig.tick();
      return;
    case 'scheduledRelease': {
      startMeasuring();
      // POST /payouts with scheduleAt: held until its time, released by the tick, sent by the workers.
      const at = new Date(clock.now().getTime() + 5 * 60_000).toISOString();
      for (let i = 0; i < count; i++)
        await engine.create(createCommand(bankTransfer({ scheduleAt: at }), `cost-s-${i}`));
      clock.advance(6 * 60_000);
      await rig.tick();
      return;
    }
    case 'recurringOccurrence': {
      // One rule per payout, each with its first occurrence due: the tick materialises it, the workers send it.
      const startDate = START.slice(0, 10);
      for (let i = 0; i < count; i++) {
        await recurrencesOf(rig.runtime).create({
          request: {
            ...bankTransfer(),
            interval: 'daily',
            startDate,
            maxOccurrences: 1,
            timeOfDay: '09:30',
          } as never,
          idempotencyKey: `cost-r-${i}`,
          actor,
        });
      }
      // The rules' creation is the API's, once per rule: the occurrence is what is measured.
      startMeasuring();
      clock.advance(3 * 3_600_000);
      await rig.tick();
      await rig.workers.queue.idle();
      // An occurrence materialised pending waits for the next tick's hand-over when it was not handed at once.
      await rig.tick();
      return;
    }
    case 'settlement':
      startMeasuring();
      // The provider's settlements, found by the poll, decided and handed to the workers at once.
      for (let i = 0; i < count; i++)
        await addSettlement(rig.sandbox.url, { category: 'MERCHANT_SETTLEMENT', amountKobo: 250_000 + i });
      await pollSettlements(rig.runtime, 600_000);
      await rig.workers.queue.idle();
      await rig.tick();
      return;
  }
}

/** Every path's cost per payout sent (`cost.byPath`), each on a table of its own. */
export async function costByPath(endpoint: string, count: number) {
  const byPath: Partial<Record<CostPath, PathCost>> = {};
  for (const path of COST_PATHS) {
    const { providerCalls: _, snapshot: __, ...cost } = await measurePath(endpoint, path, count);
    byPath[path] = cost;
    if (process.env.BENCH_COST_VERBOSE === '1') process.stderr.write(`${path}: ${JSON.stringify(cost)}\n`);
  }
  return byPath as Record<CostPath, PathCost>;
}
