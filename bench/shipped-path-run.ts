/**
 * One run of the shipped-path benchmark: this process is the coordinator, and each `submit-payouts` container a
 * Node process of its own (bench/fleet-container.ts). Here: the real `functions/sweep-due-payouts.ts` handler
 * (a function of its own in AWS, one invocation at a time) enqueues the backlog through the SQS client to the
 * local queue stand-in (lib/local/local-sqs-queue.ts: visibility, redelivery, FIFO groups, dedup), which hands
 * each batch (the dev stage's batch size, at most its maximum concurrency at once) over IPC to an idle
 * container, as Lambda's poller invokes one; a container runs the real `functions/submit-payouts.ts` with its
 * own runtime, provider pool and coalescer. Writes its measurements as JSON to BENCH_RESULT_FILE.
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
import { createDynamoDbClient } from '../lib/shared/dynamodb-client.js';
import { silentLogger } from '../lib/shared/logger.js';
import * as z from '../lib/shared/zod.js';
import { runCpuMeter, startFleet } from './fleet.js';
import { cpuSecondsOf } from './process-cpu.js';
import { startShippedPathTrace } from './shipped-path-trace.js';
import { bankTransfer, createCommand, forEachConcurrently } from './support.js';

const Env = z.object({
  BENCH_DDB_ENDPOINT: z.url(),
  BENCH_PROVIDER_URL: z.url(),
  BENCH_PROVIDER_TOKEN: z.string(),
  BENCH_PROVIDER_PIN: z.string(),
  BENCH_BACKLOG: z.coerce.number().check(z.int(), z.positive()),
  BENCH_TICK_MS: z.coerce.number().check(z.int(), z.positive()),
  BENCH_SWEEP_TIMEOUT_MS: z.coerce.number().check(z.int(), z.positive()),
  BENCH_RESULT_FILE: z.string(),
  BENCH_TRACE: z.optional(z.string()),
});
const env = Env.parse(process.env);

const tableName = `bench-shipped-${process.pid}`;
const setup = createDynamoDbClient({ endpoint: env.BENCH_DDB_ENDPOINT, ...localAwsConfig });
await ensureTable(setup, tableName);
const config = stageConfigOf('dev');
const trace = env.BENCH_TRACE === '1' ? startShippedPathTrace() : undefined;

const fleet = startFleet();
const { containers } = fleet;

const workers = await startLocalSubmissionWorkers({
  config,
  loadWorker: async () => (trace ? trace.observe(fleet.invoke) : fleet.invoke),
  logger: silentLogger,
  pollIntervalMs: 200,
});
if (trace) {
  trace.label(new URL(env.BENCH_DDB_ENDPOINT).host, 'dynamodb');
  trace.label(new URL(env.BENCH_PROVIDER_URL).host, 'provider');
  trace.label(new URL(workers.environment.SQS_ENDPOINT).host, 'sqs');
}
const functionEnvironment = {
  TABLE_NAME: tableName,
  DYNAMODB_ENDPOINT: env.BENCH_DDB_ENDPOINT,
  PROVIDER_BASE_URL: env.BENCH_PROVIDER_URL,
  PROVIDER_TOKEN: env.BENCH_PROVIDER_TOKEN,
  PROVIDER_PIN: env.BENCH_PROVIDER_PIN,
  // The queue, and the stage's per-tick maximum and provider rate limit, as the stack sets them.
  ...workers.environment,
};
Object.assign(process.env, functionEnvironment);
fleet.environment = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  ...functionEnvironment,
  ...(env.BENCH_TRACE && { BENCH_TRACE: env.BENCH_TRACE }),
};
// As many containers as the event source's maximum concurrency lets Lambda run; their processes start before
// the clock (Lambda's own start-up is not the function's), their handlers load on first invocation (cold).
await Promise.all(Array.from({ length: config.submission.maxConcurrency }, () => fleet.start()));
// The handlers log every payout as they do in Lambda; here that output goes nowhere.
process.stdout.write = () => true;
const runtime = runtimeFromProcessEnv();

// The backlog: pending payouts, created before the clock starts (not timed).
await forEachConcurrently(env.BENCH_BACKLOG, 32, (index) =>
  payoutEngineOf(runtime).create(createCommand(bankTransfer(), `shipped-${index}`)),
);

const sweeper = (await import('../functions/sweep-due-payouts.js')).handler;
const scheduledEvent = { 'detail-type': 'Scheduled Event', source: 'aws.scheduler' } as ScheduledEvent;
const tickSeconds: number[] = [];
let failedTicks = 0;
// A tick that throws (an SQS call past its deadline on a loaded machine) fails as the Lambda invocation would;
// what it did not enqueue stays in the work queue for the next tick.
const tick = async () => {
  const at = performance.now();
  const deadline = at + env.BENCH_SWEEP_TIMEOUT_MS;
  const context = {
    getRemainingTimeInMillis: () => Math.max(0, Math.floor(deadline - performance.now())),
  } as Context;
  try {
    await sweeper(scheduledEvent, context);
  } catch {
    failedTicks++;
  }
  tickSeconds.push(Math.round(performance.now() - at) / 1000);
};

const paidAtProvider = async (): Promise<{ paid: number; rateLimited: number }> => {
  const response = await fetch(`${env.BENCH_PROVIDER_URL}/__sandbox/stats`);
  const stats = (await response.json()) as { requests: Record<string, number>; rateLimited: number };
  const calls = stats.requests['/settlement/instant/payout'] ?? 0;
  return { paid: calls - stats.rateLimited, rateLimited: stats.rateLimited };
};

/** CPU seconds of every process of the run: where this 2-core machine's time goes. */
const cpuMeter = runCpuMeter(fleet);
const containerCpuAtStart = new Map<number, number>();

trace?.begin();
const cpuAtStart = cpuMeter.now();
for (const container of containers) containerCpuAtStart.set(container.pid, cpuSecondsOf(container.pid));
const started = performance.now();
let ticks = 0;
let ticking: Promise<unknown> = Promise.resolve();
// The sweeper's schedule (BENCH_TICK_MS, the deployed rate): each tick enqueues up to the stage's per-tick
// maximum from the head of the work queue; FIFO drops what is still queued from an earlier tick.
const schedule = setInterval(() => {
  ticking = ticking.then(() => {
    ticks++;
    return tick();
  });
}, env.BENCH_TICK_MS);
ticks++;
ticking = tick();
// A run that stops making progress is reported as it stands rather than waited on for ever: ten minutes
// without a single payment ends it.
let provider = await paidAtProvider();
let lastProgressAt = performance.now();
let lastPaid = provider.paid;
while (provider.paid < env.BENCH_BACKLOG && performance.now() - lastProgressAt < 600_000) {
  if (provider.paid > lastPaid) {
    lastPaid = provider.paid;
    lastProgressAt = performance.now();
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  provider = await paidAtProvider();
}
const seconds = (performance.now() - started) / 1000;
const cpu = cpuMeter.since(cpuAtStart);
const containerCpuAtEnd = new Map(
  containers.map((container) => [container.pid, cpuSecondsOf(container.pid)]),
);
const traced = trace?.report();
clearInterval(schedule);
await ticking;
await workers.queue.idle();
const succeeded = await runtime.store.countByStatus(PayoutStatus.Succeeded, env.BENCH_BACKLOG + 1);
const failed = await runtime.store.countByStatus(PayoutStatus.Failed, env.BENCH_BACKLOG + 1);
const stats = workers.queue.stats();
const containerReports = await Promise.all(containers.map(fleet.reportOf));
writeFileSync(
  env.BENCH_RESULT_FILE,
  JSON.stringify({
    seconds,
    succeeded,
    failed,
    providerPaid: provider.paid,
    rateLimited: provider.rateLimited,
    ticks,
    failedTicks,
    invocations: stats.invocations,
    peakConcurrency: stats.peakConcurrency,
    deadLetters: stats.deadLetters,
    batchSize: config.submission.batchSize,
    maxConcurrency: config.submission.maxConcurrency,
    fleet: {
      processes: containers.length,
      containers: containerReports.map((report) => ({
        ...report,
        // Over the timed window only (the process start before the clock is not the function's).
        cpuSeconds:
          Math.round(
            ((containerCpuAtEnd.get(report.pid) ?? 0) - (containerCpuAtStart.get(report.pid) ?? 0)) * 100,
          ) / 100,
      })),
      cpu,
    },
    ...(traced && { trace: { tickSeconds, ...traced } }),
  }),
);
await workers.stop();
fleet.stop();
await runtime.close();
setup.destroy();
process.exit(0);
