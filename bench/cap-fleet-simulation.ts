import { performance } from 'node:perf_hooks';
import {
  type DynamoDBClient,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import { systemPrincipal } from '../lib/controls/index.js';
import { ensureTable } from '../lib/local/create-table.js';
import { localAwsConfig } from '../lib/local/dynamodb-local.js';
import { buildTransition } from '../lib/payouts/engine/context.js';
import { type Payout, PayoutStatus } from '../lib/payouts/model.js';
import { PayoutLedger } from '../lib/payouts/payout-ledger.js';
import { MAX_CAP_SHARDS, useCapShards } from '../lib/payouts/store/control-items.js';
import { DynamoDbPayoutStore } from '../lib/payouts/store/dynamodb-payout-store.js';
import type { TransitionWrite } from '../lib/payouts/store/payout-store.js';
import { ManualClock } from '../lib/shared/clock.js';
import { createDynamoDbClient } from '../lib/shared/dynamodb-client.js';
import { useTimeDilation } from '../lib/shared/jitter.js';
import { silentLogger } from '../lib/shared/logger.js';
import { calendarDayIn } from '../lib/shared/wall-clock.js';
import { bankTransfer, createCommand, fixed, forEachConcurrently } from './support.js';

/** How long a transaction holds its items in the model (AWS's transactions take ~10-25 ms end to end). */
const TRANSACTION_MS = 10;
/** One item's write throughput (a partition's limit: an item lives on one partition). */
const ITEM_WCU_PER_SECOND = 1000;
/** The claims per second of real time the dilated model runs at, whatever R. */
const REAL_CLAIMS_PER_SECOND = 50;
const CONTAINERS = 10;
const CLAIM_KOBO = 2_000_000;

interface ItemState {
  /** Model transactions holding the item until then (real ms). */
  heldUntil: number;
  /** When the item's write units are next free (real ms): a token bucket kept as a clock. */
  freeAt: number;
}

type Marshalled = Record<string, { S?: string } | undefined>;
const keyOf = (key: Marshalled | undefined) => `${key?.pk?.S ?? ''}|${key?.sk?.S ?? ''}`;

/** The per-item model, shared by every client of the fleet. */
class ItemModel {
  readonly #items = new Map<string, ItemState>();
  conflicts = 0;
  readonly #k: number;

  constructor(dilation: number) {
    this.#k = dilation;
  }

  #state(key: string): ItemState {
    let state = this.#items.get(key);
    if (!state) {
      state = { heldUntil: 0, freeAt: 0 };
      this.#items.set(key, state);
    }
    return state;
  }

  /** Waits for the item's units: 1,000 WCU/s of model time, k times fewer of real time. */
  #reserveUnits(state: ItemState, wcu: number, now: number): number {
    const msPerUnit = (1000 / ITEM_WCU_PER_SECOND) * this.#k;
    const start = Math.max(now, state.freeAt);
    state.freeAt = start + wcu * msPerUnit;
    return start - now;
  }

  attach(client: DynamoDBClient): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const command = String(context.commandName ?? '');
        const input = args.input as {
          Item?: Marshalled;
          Key?: Marshalled;
          TransactItems?: {
            Put?: { Item?: Marshalled };
            Update?: { Key?: Marshalled };
            Delete?: { Key?: Marshalled };
            ConditionCheck?: { Key?: Marshalled };
          }[];
        };
        const now = performance.now();
        if (command === 'TransactWriteItemsCommand') {
          const items = (input.TransactItems ?? []).map((item) => ({
            key: keyOf(item.Put?.Item ?? item.Update?.Key ?? item.Delete?.Key ?? item.ConditionCheck?.Key),
            writes: !item.ConditionCheck,
          }));
          const states = items.map((item) => this.#state(item.key));
          const busy = states.map((state) => state.heldUntil > now);
          if (busy.some(Boolean)) {
            this.conflicts++;
            throw new TransactionCanceledException({
              message: 'Transaction cancelled (simulated TransactionConflict)',
              $metadata: {},
              CancellationReasons: busy.map((held) => ({ Code: held ? 'TransactionConflict' : 'None' })),
            });
          }
          const hold = TRANSACTION_MS * this.#k;
          const wait = Math.max(
            0,
            ...states.map((state, index) => (items[index]?.writes ? this.#reserveUnits(state, 2, now) : 0)),
          );
          for (const state of states) state.heldUntil = now + wait + hold;
          if (wait > 0) await delay(wait);
          const started = performance.now();
          try {
            return await next(args);
          } finally {
            const left = hold - (performance.now() - started);
            if (left > 0) await delay(left);
          }
        }
        if (
          command === 'PutItemCommand' ||
          command === 'UpdateItemCommand' ||
          command === 'DeleteItemCommand'
        ) {
          const state = this.#state(keyOf(input.Item ?? input.Key));
          if (state.heldUntil > now) {
            this.conflicts++;
            throw new TransactionConflictException({
              message: 'simulated: item in a transaction',
              $metadata: {},
            });
          }
          const wait = this.#reserveUnits(state, 1, now);
          if (wait > 0) await delay(wait);
        }
        return next(args);
      },
      { step: 'initialize', name: 'simulatedItemSerialisation', priority: 'low' },
    );
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One row of `fleetSimulation`. */
export interface FleetSimulationRow {
  readonly design: 'single counter' | 'sharded counter';
  readonly limitPerSecond: number;
  readonly ratioOfLimit: number;
  readonly capOverspentKobo: number;
  readonly claims: number;
  readonly claimed: number;
  readonly refusedByCap: number;
  readonly failedOnConflicts: number;
  readonly conflicts: number;
  /** Room left under the cap when claims were refused (less than one claim: none refused while room remained). */
  readonly roomLeftKobo: number;
  readonly dilation: number;
}

type StoreClass = new (
  client: DynamoDBClient,
  tableName: string,
) => {
  transition(write: TransitionWrite): Promise<Payout>;
  getCapUsage(capKey: string, day: string): Promise<number>;
};

/**
 * The store of both designs is the shipped one; the design is its shard count (`DAILY_CAP_SHARDS`): 1, the single
 * counter (the default), or 32.
 */
function storeClassOf(design: FleetSimulationRow['design']): StoreClass {
  useCapShards(design === 'sharded counter' ? MAX_CAP_SHARDS : 1);
  return DynamoDbPayoutStore as unknown as StoreClass;
}

async function simulate(
  endpoint: string,
  design: FleetSimulationRow['design'],
  rate: number,
  claims: number,
): Promise<FleetSimulationRow> {
  const dilation = rate / REAL_CLAIMS_PER_SECOND;
  const tableName = `bench-capsim-${design.startsWith('single') ? 'single' : 'sharded'}-${rate}-${process.pid}`;
  const setup = createDynamoDbClient({ endpoint, ...localAwsConfig });
  await ensureTable(setup, tableName);
  // The cap is 90% of the demand: the window's last claims are refused, so the cap's exactness is tested too.
  const cap = Math.floor(claims * CLAIM_KOBO * 0.9);
  const clock = new ManualClock('2026-03-02T09:00:00.000Z');
  const ledger = new PayoutLedger({
    store: new DynamoDbPayoutStore(setup, tableName),
    logger: silentLogger,
    config: { dailyCapKobo: cap, maxInstructionKobo: cap, approvalThresholdKobo: cap },
    clock,
  });
  const payouts: Payout[] = [];
  await forEachConcurrently(claims, 8, async (index) => {
    payouts[index] = (
      await ledger.create(createCommand(bankTransfer({ amount: CLAIM_KOBO }), `sim-${index}`))
    ).payout;
  });
  const day = calendarDayIn(ledger.ctx.config.capTimeZone, clock.now());
  const actor = systemPrincipal('simulation');
  const claimOf = (payout: Payout) =>
    buildTransition(
      payout,
      {
        to: PayoutStatus.Submitting,
        actor,
        reason: 'simulated claim',
        changes: { capDay: day, submissionCount: payout.submissionCount + 1 },
        cap: { capKey: payout.capKey, day, deltaKobo: payout.amountKobo, limitKobo: cap },
      },
      clock.now(),
    );
  const model = new ItemModel(dilation);
  // The writers' jittered pauses after a conflict are part of the modelled world: stretched with it.
  useTimeDilation(dilation);
  const Store = storeClassOf(design);
  const clients = Array.from({ length: CONTAINERS }, () => {
    const client = createDynamoDbClient({ endpoint, ...localAwsConfig });
    model.attach(client);
    return client;
  });
  const stores = clients.map((client) => new Store(client, tableName));
  let claimed = 0;
  let refusedByCap = 0;
  let failedOnConflicts = 0;
  const started = performance.now();
  const intervalMs = 1000 / REAL_CLAIMS_PER_SECOND;
  await Promise.all(
    payouts.map(async (payout, index) => {
      await delay(index * intervalMs - (performance.now() - started));
      const store = stores[index % CONTAINERS];
      try {
        await store?.transition(claimOf(payout));
        claimed++;
      } catch (error) {
        if (error instanceof Error && error.name === 'DailyCapExceededError') refusedByCap++;
        else failedOnConflicts++;
      }
    }),
  );
  const usage = await new DynamoDbPayoutStore(setup, tableName).getCapUsage(payouts[0]?.capKey ?? '', day);
  useTimeDilation(1);
  for (const client of clients) client.destroy();
  setup.destroy();
  // Claims arrive at exactly R; each is either decided in time (taken, or refused by the cap) or failed on
  // conflicts and handed back to the queue (delivered again within 5 to 60 s): the share decided is the share of R
  // the counter sustains.
  return {
    design,
    limitPerSecond: rate,
    ratioOfLimit: fixed((claims - failedOnConflicts) / claims, 3),
    capOverspentKobo: Math.max(0, usage - cap),
    claims,
    claimed,
    refusedByCap,
    failedOnConflicts,
    conflicts: model.conflicts,
    roomLeftKobo: cap - usage,
    dilation: fixed(dilation, 1),
  };
}

/** `fleetSimulation`: R = 50, 500 and 1,000/s, the single counter and the shards. */
export async function simulateCapFleet(endpoint: string, claims: number): Promise<FleetSimulationRow[]> {
  const rows: FleetSimulationRow[] = [];
  for (const rate of [50, 500, 1000]) {
    for (const design of ['single counter', 'sharded counter'] as const) {
      rows.push(await simulate(endpoint, design, rate, claims));
      if (process.env.BENCH_SIM_VERBOSE === '1') process.stderr.write(`${JSON.stringify(rows.at(-1))}\n`);
    }
  }
  return rows;
}
