/**
 * One run of the month-end benchmark (bench/month-end.ts), the coordinator process. N scheduled payouts all due
 * at one instant D are seeded (not timed); at D the real `functions/sweep-due-payouts.ts` handler runs on its
 * schedule (every SWEEP_TICK_SECONDS, with its timeout) and enqueues through the SQS client to the local queue
 * stand-in, which hands batches to the `submit-payouts` containers, each a Node process of its own
 * (bench/fleet-container.ts, as bench/shipped-path-run.ts runs them).
 *
 * BENCH_MODE=drain: the whole month-end, paid; BENCH_MODE=release: no container consumes the queue and the ticks
 * run back to back, each timed as the handler's invocation, to measure the release side alone at a scale whose
 * drain would not fit here. Writes its measurements as JSON to BENCH_RESULT_FILE.
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { ensureTable } from '../lib/local/create-table.js';
import { localAwsConfig } from '../lib/local/dynamodb-local.js';
import { stageConfigOf, startLocalSubmissionWorkers } from '../lib/local/submission-workers.js';
import { PayoutStatus } from '../lib/payouts/model.js';
import { payoutEngineOf } from '../lib/runtime/engines.js';
import { runtimeFromProcessEnv } from '../lib/runtime/runtime.js';
import { DocumentClient } from '../lib/shared/document-client.js';
import { createDynamoDbClient } from '../lib/shared/dynamodb-client.js';
import { silentLogger } from '../lib/shared/logger.js';
import * as z from '../lib/shared/zod.js';
import { type RunCpu, runCpuMeter, startFleet } from './fleet.js';
import { seedMonthEnd } from './month-end-seed.js';

const Env = z.object({
  BENCH_DDB_ENDPOINT: z.url(),
  BENCH_PROVIDER_URL: z.url(),
  BENCH_PROVIDER_TOKEN: z.string(),
  BENCH_PROVIDER_PIN: z.string(),
  BENCH_PAYOUTS: z.coerce.number().check(z.int(), z.positive()),
  BENCH_MODE: z.enum(['drain', 'release']),
  BENCH_TICK_MS: z.coerce.number().check(z.int(), z.positive()),
  BENCH_SWEEP_TIMEOUT_MS: z.coerce.number().check(z.int(), z.positive()),
  BENCH_RESULT_FILE: z.string(),
});
const env = Env.parse(process.env);

/** One sweeper tick as measured: when it started (ms after D), how long it ran, what it released and enqueued. */
export interface TickFigures {
  readonly startMs: number;
  readonly ms: number;
  readonly released: number;
  readonly enqueued: number;
  readonly leftOver: boolean;
  readonly failed: boolean;
}

/** What a run writes to BENCH_RESULT_FILE. */
export interface MonthEndRunResult {
  readonly mode: 'drain' | 'release';
  readonly payouts: number;
  readonly seedSeconds: number;
  /** How far the seed ran past D; the clock then starts at the first tick. */
  readonly seedOverrunMs: number;
  readonly ticks: readonly TickFigures[];
  /** Each enqueue: ms after D, messages new to the queue, and messages sent again (FIFO drops them in 5 min). */
  readonly enqueues: readonly (readonly [number, number, number])[];
  /** drain only: */
  readonly firstSendMs?: number;
  readonly lastSendMs?: number;
  readonly drainSeconds?: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly stillScheduled: number;
  readonly ledger?: { readonly paidOnce: number; readonly paidTwiceOrMore: number; readonly notPaid: number };
  readonly providerCalls?: number;
  readonly invocations: number;
  /** Messages the containers were handed: each payout once, and the copies a later tick queued again. */
  readonly messagesDelivered?: number;
  readonly deadLetters: number;
  readonly processes: number;
  readonly cpu: RunCpu;
  readonly seconds: number;
}

const tableName = `bench-month-end-${process.pid}`;
const setup = createDynamoDbClient({ endpoint: env.BENCH_DDB_ENDPOINT, ...localAwsConfig });
await ensureTable(setup, tableName);
const config = stageConfigOf('dev');
const draining = env.BENCH_MODE === 'drain';

const fleet = startFleet();

const workers = await startLocalSubmissionWorkers({
  config,
  loadWorker: async () => fleet.invoke,
  logger: silentLogger,
  pollIntervalMs: 200,
  // The release run: nothing consumes, so the queue holds every message the ticks enqueued.
  ...(!draining && { overrides: { maxConcurrency: 0 } }),
});
const functionEnvironment = {
  TABLE_NAME: tableName,
  DYNAMODB_ENDPOINT: env.BENCH_DDB_ENDPOINT,
  PROVIDER_BASE_URL: env.BENCH_PROVIDER_URL,
  PROVIDER_TOKEN: env.BENCH_PROVIDER_TOKEN,
  PROVIDER_PIN: env.BENCH_PROVIDER_PIN,
  ...workers.environment,
};
Object.assign(process.env, functionEnvironment);
fleet.environment = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  ...functionEnvironment,
};
if (draining)
  await Promise.all(Array.from({ length: config.submission.maxConcurrency }, () => fleet.start()));
process.stdout.write = () => true;
const runtime = runtimeFromProcessEnv();

// D: far enough ahead for the seed to finish (it wrote ~2,000 a second here), then waited for.
const seedStarted = performance.now();
const dueAtMs = Date.now() + 20_000 + env.BENCH_PAYOUTS * 0.9;
const ids = await seedMonthEnd({
  engine: payoutEngineOf(runtime),
  doc: DocumentClient.from(runtime.dynamoDb),
  tableName,
  count: env.BENCH_PAYOUTS,
  dueAt: new Date(dueAtMs).toISOString(),
});
const seedSeconds = (performance.now() - seedStarted) / 1000;
const sweeper = (await import('../functions/sweep-due-payouts.js')).handler;
// The containers warm before D (an empty batch: the handler's import and its runtime): here an import is tsx
// transpiling lib/ on a shared 2-core machine, seconds, not the bundle's cold start (docs/cold-start.md).
const warmContext = { getRemainingTimeInMillis: () => 60_000 } as Context;
await Promise.all(
  fleet.containers.map((container) => fleet.invokeOn(container, { Records: [] }, warmContext)),
);
// A seed (and the warm-up) that overran D (a loaded machine): the clock starts with the first tick instead, and says by how much.
const seedOverrunMs = Math.max(0, Date.now() - dueAtMs);
const clockZero = dueAtMs + seedOverrunMs;
// The handler's first import (its cold start) is the sweeper's own, before D as a warm function's would be: a
// scheduled function's cold start is paid once a day, not once a month.
const scheduledEvent = { 'detail-type': 'Scheduled Event', source: 'aws.scheduler' } as ScheduledEvent;

const sinceDue = () => Date.now() - clockZero;
const enqueues: [number, number, number][] = [];
const everSent = new Set<string>();
const send = workers.queue.send.bind(workers.queue);
workers.queue.send = (entries) => {
  const fresh = entries.filter((entry) => {
    const key = `${entry.groupId}:${entry.deduplicationId}`;
    if (everSent.has(key)) return false;
    everSent.add(key);
    return true;
  }).length;
  enqueues.push([sinceDue(), fresh, entries.length - fresh]);
  return send(entries);
};

const cpuMeter = runCpuMeter(fleet);

const ticks: TickFigures[] = [];
const tick = async () => {
  const startMs = sinceDue();
  const at = performance.now();
  const deadline = at + env.BENCH_SWEEP_TIMEOUT_MS;
  const context = {
    getRemainingTimeInMillis: () => Math.max(0, Math.floor(deadline - performance.now())),
  } as Context;
  try {
    const report = await sweeper(scheduledEvent, context);
    const payouts = 'enqueued' in report.payouts ? report.payouts : undefined;
    ticks.push({
      startMs,
      ms: Math.round(performance.now() - at),
      released: report.payouts.released,
      enqueued: payouts?.enqueued ?? 0,
      leftOver: report.payouts.leftOver,
      failed: false,
    });
  } catch {
    ticks.push({
      startMs,
      ms: Math.round(performance.now() - at),
      released: 0,
      enqueued: 0,
      leftOver: true,
      failed: true,
    });
  }
};

await new Promise((resolve) => setTimeout(resolve, Math.max(0, clockZero - Date.now())));
const cpuAtStart = cpuMeter.now();
const started = performance.now();

const paidAtProvider = async (): Promise<number> => {
  const response = await fetch(`${env.BENCH_PROVIDER_URL}/__sandbox/stats`);
  const stats = (await response.json()) as { requests: Record<string, number>; rateLimited: number };
  return (stats.requests['/settlement/instant/payout'] ?? 0) - stats.rateLimited;
};

let drainSeconds: number | undefined;
if (draining) {
  // The schedule, phase 0 at D (a month-end at 00:00 and the every-minute schedule's tick at 00:00).
  let ticking: Promise<unknown> = tick();
  const schedule = setInterval(() => {
    ticking = ticking.then(tick);
  }, env.BENCH_TICK_MS);
  let paid = await paidAtProvider();
  let lastPaid = paid;
  let lastProgressAt = performance.now();
  while (paid < env.BENCH_PAYOUTS && performance.now() - lastProgressAt < 300_000) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    paid = await paidAtProvider();
    if (paid > lastPaid) {
      lastPaid = paid;
      lastProgressAt = performance.now();
    }
  }
  drainSeconds = (performance.now() - started) / 1000;
  clearInterval(schedule);
  await ticking;
  await workers.queue.idle();
} else {
  // Back to back: each tick timed as its invocation; what the schedule would add is the wait between them.
  // Done when a tick releases nothing: with nothing consuming, every later tick would enqueue the work queue's
  // head again (FIFO drops it) and report work left over for ever.
  for (let n = 0; n < 1_000; n++) {
    await tick();
    const last = ticks.at(-1);
    if (last && !last.failed && (!last.leftOver || (last.released === 0 && n > 0))) break;
  }
}
const seconds = (performance.now() - started) / 1000;
const cpu = cpuMeter.since(cpuAtStart);

const countOf = (status: PayoutStatus) => runtime.store.countByStatus(status, env.BENCH_PAYOUTS + 1);
const [succeeded, failed, stillScheduled] = await Promise.all([
  countOf(PayoutStatus.Succeeded),
  countOf(PayoutStatus.Failed),
  countOf(PayoutStatus.Scheduled),
]);

/** Every committed provider operation, by the payout marker in its narration: each payout exactly once. */
async function ledgerCheck(): Promise<MonthEndRunResult['ledger']> {
  const response = await fetch(`${env.BENCH_PROVIDER_URL}/__sandbox/ledger`);
  const ledger = (await response.json()) as { operations: { narration: string }[] };
  const byPayout = new Map<string, number>();
  for (const operation of ledger.operations) {
    const id = /po_([0-9A-Za-z]{26})/.exec(operation.narration)?.[1]?.toUpperCase();
    if (id) byPayout.set(id, (byPayout.get(id) ?? 0) + 1);
  }
  let paidOnce = 0;
  let paidTwiceOrMore = 0;
  for (const id of ids) {
    const times = byPayout.get(id) ?? 0;
    if (times === 1) paidOnce++;
    else if (times > 1) paidTwiceOrMore++;
  }
  return { paidOnce, paidTwiceOrMore, notPaid: ids.length - paidOnce - paidTwiceOrMore };
}

async function sends(): Promise<{ first: number; last: number; calls: number }> {
  const response = await fetch(`${env.BENCH_PROVIDER_URL}/__sandbox/marked-requests`);
  const { requests } = (await response.json()) as { requests: { atMs: number; path: string }[] };
  const payoutCalls = requests.filter((request) => request.path === '/settlement/instant/payout');
  const times = payoutCalls.map((request) => request.atMs - clockZero);
  return { first: Math.min(...times), last: Math.max(...times), calls: payoutCalls.length };
}

const messagesDelivered = (await Promise.all(fleet.containers.map(fleet.reportOf))).reduce(
  (sum, report) => sum + report.messages,
  0,
);
const sent = draining ? await sends() : undefined;
const stats = workers.queue.stats();
const result: MonthEndRunResult = {
  mode: env.BENCH_MODE,
  payouts: env.BENCH_PAYOUTS,
  seedSeconds: Math.round(seedSeconds * 10) / 10,
  seedOverrunMs,
  ticks,
  enqueues,
  ...(sent && { firstSendMs: sent.first, lastSendMs: sent.last, providerCalls: sent.calls }),
  ...(drainSeconds !== undefined && { drainSeconds }),
  succeeded,
  failed,
  stillScheduled,
  ...(draining && { ledger: await ledgerCheck() }),
  invocations: stats.invocations,
  messagesDelivered,
  deadLetters: stats.deadLetters,
  processes: fleet.containers.length,
  cpu,
  seconds,
};
writeFileSync(env.BENCH_RESULT_FILE, JSON.stringify(result));
await workers.stop();
fleet.stop();
await runtime.close();
setup.destroy();
process.exit(0);
