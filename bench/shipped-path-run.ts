/**
 * One run of the shipped-path benchmark: this process is the coordinator, and each `submit-payouts` container a
 * Node process of its own (bench/fleet-container.ts). Here: the real `functions/sweep-due-payouts.ts` handler
 * (a function of its own in AWS, one invocation at a time) enqueues the backlog through the SQS client to the
 * local queue stand-in (lib/local/local-sqs-queue.ts: visibility, redelivery, FIFO groups, dedup), which hands
 * each batch (the dev stage's batch size, at most its maximum concurrency at once) over IPC to an idle
 * container, as Lambda's poller invokes one; a container runs the real `functions/submit-payouts.ts` with its
 * own runtime, provider pool and coalescer. Writes its measurements as JSON to BENCH_RESULT_FILE.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Context, ScheduledEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { ensureTable } from '../lib/local/create-table.js';
import { localAwsConfig } from '../lib/local/dynamodb-local.js';
import { stageConfigOf, startLocalSubmissionWorkers } from '../lib/local/submission-workers.js';
import { PayoutStatus } from '../lib/payouts/model.js';
import { payoutEngineOf } from '../lib/runtime/payout-engine.js';
import { runtimeFromProcessEnv } from '../lib/runtime/runtime.js';
import { createDynamoDbClient } from '../lib/shared/dynamodb-client.js';
import { silentLogger } from '../lib/shared/logger.js';
import * as z from '../lib/shared/zod.js';
import type { ContainerAnswer, ContainerReport, ContainerRequest } from './fleet-container.js';
import { childrenOf, cpuSecondsOf, machineBusySeconds } from './process-cpu.js';
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

/** A container process and the invocation it is running, if any. */
interface Container {
  readonly child: ChildProcess;
  readonly pid: number;
  busy: boolean;
}
const containers: Container[] = [];
let nextInvocation = 0;
const waiting = new Map<number, (answer: ContainerAnswer) => void>();
let containerEnvironment: NodeJS.ProcessEnv = {};

async function startContainer(): Promise<Container> {
  const child = fork(join(import.meta.dirname, 'fleet-container.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: containerEnvironment,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const pid = await new Promise<number>((resolve, reject) => {
    child.once('message', (answer: ContainerAnswer) => {
      if (answer.kind === 'ready') resolve(answer.pid);
      else reject(new Error(`container answered ${answer.kind} before it was ready`));
    });
    child.once('exit', (code) => reject(new Error(`container exited with ${code} before it was ready`)));
  });
  child.on('message', (answer: ContainerAnswer) => {
    if (answer.kind === 'done' || answer.kind === 'failed') {
      waiting.get(answer.id)?.(answer);
      waiting.delete(answer.id);
    }
  });
  const container = { child, pid, busy: false };
  containers.push(container);
  return container;
}

/**
 * Lambda's poller: the batch goes to an idle container, or a new one (cold) when all are busy (an invocation the
 * queue gave up on as timed out still occupies its container, as in Lambda).
 */
async function invokeContainer(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  const container = containers.find((candidate) => !candidate.busy) ?? (await startContainer());
  container.busy = true;
  const id = nextInvocation++;
  try {
    const answer = await new Promise<ContainerAnswer>((resolve) => {
      waiting.set(id, resolve);
      const request: ContainerRequest = {
        kind: 'invoke',
        id,
        event,
        remainingMs: context.getRemainingTimeInMillis(),
      };
      container.child.send(request);
    });
    if (answer.kind === 'failed') throw new Error(`the container's invocation threw ${answer.error}`);
    if (answer.kind !== 'done') throw new Error(`unexpected answer ${answer.kind}`);
    return answer.response ?? { batchItemFailures: [] };
  } finally {
    container.busy = false;
  }
}

async function reportOf(container: Container): Promise<ContainerReport> {
  return new Promise((resolve) => {
    const onMessage = (answer: ContainerAnswer) => {
      if (answer.kind !== 'report') return;
      container.child.off('message', onMessage);
      resolve(answer.report);
    };
    container.child.on('message', onMessage);
    container.child.send({ kind: 'report' } satisfies ContainerRequest);
  });
}

const workers = await startLocalSubmissionWorkers({
  config,
  loadWorker: async () => (trace ? trace.observe(invokeContainer) : invokeContainer),
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
containerEnvironment = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  ...functionEnvironment,
  ...(env.BENCH_TRACE && { BENCH_TRACE: env.BENCH_TRACE }),
};
// As many containers as the event source's maximum concurrency lets Lambda run; their processes start before
// the clock (Lambda's own start-up is not the function's), their handlers load on first invocation (cold).
await Promise.all(Array.from({ length: config.submission.maxConcurrency }, () => startContainer()));
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
  const context = { getRemainingTimeInMillis: () => deadline - performance.now() } as Context;
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

/** CPU seconds so far of every process of the run: where this 2-core machine's time goes. */
const siblings = childrenOf(process.ppid);
const dynamoDbPid = siblings.find((sibling) => sibling.commandLine.includes('DynamoDBLocal'))?.pid;
const providerPid = siblings.find((sibling) => sibling.commandLine.includes('sandbox'))?.pid;
const cpuNow = () => {
  const own = process.cpuUsage();
  return {
    coordinator: (own.user + own.system) / 1e6,
    containers: containers.reduce((sum, container) => sum + cpuSecondsOf(container.pid), 0),
    dynamoDbLocal: dynamoDbPid ? cpuSecondsOf(dynamoDbPid) : 0,
    provider: providerPid ? cpuSecondsOf(providerPid) : 0,
    machine: machineBusySeconds(),
  };
};
const containerCpuAtStart = new Map<number, number>();

trace?.begin();
const cpuAtStart = cpuNow();
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
const cpuAtEnd = cpuNow();
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
const containerReports = await Promise.all(containers.map(reportOf));
const cpu = Object.fromEntries(
  Object.entries(cpuAtEnd).map(([name, value]) => [
    name,
    Math.round((value - cpuAtStart[name as keyof typeof cpuAtStart]) * 100) / 100,
  ]),
);
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
for (const container of containers) container.child.send({ kind: 'stop' } satisfies ContainerRequest);
await runtime.close();
setup.destroy();
process.exit(0);
