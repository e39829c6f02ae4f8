/**
 * One run of the payout-runs benchmark (bench/payout-runs.ts), the coordinator process. The real
 * `functions/api-payout-runs.ts` in a container process of its own (bench/api-container.ts) accepts
 * BENCH_ACCEPTS files of BENCH_ROWS rows each, timed one after another; a second person approves the first; from
 * then on the real `functions/sweep-due-payouts.ts` runs on its schedule (every BENCH_TICK_MS, with its timeout)
 * in this process, turning the run's rows into payouts and enqueueing them through the SQS client to the local
 * queue stand-in, which hands batches to the `submit-payouts` containers (bench/fleet.ts), each a process. Writes
 * its measurements as JSON to BENCH_RESULT_FILE.
 */
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { ensureTable } from '../lib/local/create-table.js';
import { localAwsConfig } from '../lib/local/dynamodb-local.js';
import { stageConfigOf, startLocalSubmissionWorkers } from '../lib/local/submission-workers.js';
import { createDynamoDbClient } from '../lib/shared/dynamodb-client.js';
import { silentLogger } from '../lib/shared/logger.js';
import * as z from '../lib/shared/zod.js';
import type { ApiContainerAnswer } from './api-container.js';
import { type RunCpu, runCpuMeter, startFleet } from './fleet.js';

const Env = z.object({
  BENCH_DDB_ENDPOINT: z.url(),
  BENCH_PROVIDER_URL: z.url(),
  BENCH_PROVIDER_TOKEN: z.string(),
  BENCH_PROVIDER_PIN: z.string(),
  BENCH_ROWS: z.coerce.number().check(z.int(), z.positive()),
  BENCH_ACCEPTS: z.coerce.number().check(z.int(), z.positive()),
  BENCH_TICK_MS: z.coerce.number().check(z.int(), z.positive()),
  BENCH_SWEEP_TIMEOUT_MS: z.coerce.number().check(z.int(), z.positive()),
  BENCH_RESULT_FILE: z.string(),
});
const env = Env.parse(process.env);

/** One POST of a file: its answer's status and its round trip on 127.0.0.1. */
export interface AcceptFigures {
  readonly status: number;
  readonly ms: number;
  readonly bytes: number;
  /** The problem's detail of a refusal. */
  readonly detail?: string;
}

/** One sweeper tick: when it started (ms after the approval), how long it ran, the rows it made payouts. */
export interface RunTickFigures {
  readonly startMs: number;
  readonly ms: number;
  readonly rowsCreated: number;
  readonly enqueued: number;
  readonly failed: boolean;
}

/** What a run writes to BENCH_RESULT_FILE. */
export interface PayoutRunsRunResult {
  readonly rows: number;
  readonly accepts: readonly AcceptFigures[];
  readonly runState: string;
  /** Whether the run waited for a second person's approval (its total reached the threshold). */
  readonly approved: boolean;
  readonly ticks: readonly RunTickFigures[];
  readonly firstSendMs: number;
  /** From the approval to the last provider call of the run. */
  readonly lastSendMs: number;
  readonly drainSeconds: number;
  /** Rows the sandbox's ledger holds once, more than once, or not at all (by the run id and row number). */
  readonly ledger: { readonly paidOnce: number; readonly paidTwiceOrMore: number; readonly notPaid: number };
  readonly failedRows: number;
  readonly invocations: number;
  readonly processes: number;
  readonly cpu: RunCpu;
}

const tableName = `bench-payout-runs-${process.pid}`;
const setup = createDynamoDbClient({ endpoint: env.BENCH_DDB_ENDPOINT, ...localAwsConfig });
await ensureTable(setup, tableName);
const config = stageConfigOf('dev');
const fleet = startFleet();
const workers = await startLocalSubmissionWorkers({
  config,
  loadWorker: async () => fleet.invoke,
  logger: silentLogger,
  pollIntervalMs: 200,
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
await Promise.all(Array.from({ length: config.submission.maxConcurrency }, () => fleet.start()));
process.stdout.write = () => true;

const api = fork(join(import.meta.dirname, 'api-container.ts'), [], {
  execArgv: ['--import', 'tsx'],
  env: { ...fleet.environment, BENCH_API_FUNCTION: 'api-payout-runs' },
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
});
const apiUrl = await new Promise<string>((resolve, reject) => {
  api.once('message', (answer: ApiContainerAnswer) => resolve(answer.url));
  api.once('exit', (code) => reject(new Error(`the API container exited with ${code} before it was ready`)));
});

/** A payroll file of `rows` distinct rows (its own references, accounts and amounts), tagged so no two are alike. */
function payrollFile(rows: number, tag: string): string {
  const lines = ['reference,amount,bankCode,accountNumber,accountName,narration'];
  for (let row = 1; row <= rows; row++) {
    const account = String(1_000_000_000 + row).slice(0, 10);
    lines.push(`${tag}-${row},${20_000 + row},058,${account},Staff ${row},June salary ${tag}`);
  }
  return `${lines.join('\n')}\n`;
}

async function request(
  method: string,
  path: string,
  options: { body?: string; headers?: Record<string, string> },
) {
  const response = await fetch(`${apiUrl}${path}`, {
    method,
    headers: { 'x-ops-principal': 'alice', ...options.headers },
    ...(options.body !== undefined && { body: options.body }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

// The first POST warms the API container (its import, its runtime), as a function called before a payroll is.
await request('GET', '/payout-runs?limit=1', {});
const accepts: AcceptFigures[] = [];
const runIds: string[] = [];
for (let n = 0; n < env.BENCH_ACCEPTS; n++) {
  const file = payrollFile(env.BENCH_ROWS, `run${n}`);
  const at = performance.now();
  const answer = await request('POST', '/payout-runs', {
    body: file,
    headers: { 'content-type': 'text/csv', 'idempotency-key': `bench-run-${n}` },
  });
  accepts.push({
    status: answer.status,
    ms: Math.round(performance.now() - at),
    bytes: Buffer.byteLength(file),
  });
  if (typeof answer.body.runId === 'string') runIds.push(answer.body.runId);
}
const [runId, ...others] = runIds;
if (!runId) throw new Error(`no run was accepted: ${JSON.stringify(accepts)}`);
// Only the first run is paid: the others were there to time the accept, and are withdrawn.
for (const other of others) {
  const cancelled = await request('POST', `/payout-runs/${other}/cancel`, {
    body: '{}',
    headers: { 'content-type': 'application/json' },
  });
  if (cancelled.status !== 200) throw new Error(`the cancel of ${other} answered ${cancelled.status}`);
}
// A run whose total reaches the approval threshold waits for a second person (every full-size file does).
const waited = (await request('GET', `/payout-runs/${runId}`, {})).body.status === 'pending_approval';
if (waited) {
  const approved = await request('POST', `/payout-runs/${runId}/approve`, {
    body: '{}',
    headers: { 'content-type': 'application/json', 'x-ops-principal': 'bob' },
  });
  if (approved.status !== 200)
    throw new Error(`the approval answered ${approved.status}: ${JSON.stringify(approved.body)}`);
}

const sweeper = (await import('../functions/sweep-due-payouts.js')).handler;
// The containers warm before the approval (an empty batch: the handler's import and its runtime), as the
// month-end's do before D: here an import is tsx transpiling lib/, seconds, not the bundle's cold start.
const warmContext = { getRemainingTimeInMillis: () => 60_000 } as Context;
await Promise.all(
  fleet.containers.map((container) => fleet.invokeOn(container, { Records: [] }, warmContext)),
);
const scheduledEvent = { 'detail-type': 'Scheduled Event', source: 'aws.scheduler' } as ScheduledEvent;
const clockZero = Date.now();
const sinceApproval = () => Date.now() - clockZero;

const cpuMeter = runCpuMeter(fleet);

const ticks: RunTickFigures[] = [];
const tick = async () => {
  const startMs = sinceApproval();
  const at = performance.now();
  const deadline = at + env.BENCH_SWEEP_TIMEOUT_MS;
  const context = {
    getRemainingTimeInMillis: () => Math.max(0, Math.floor(deadline - performance.now())),
  } as Context;
  try {
    const report = await sweeper(scheduledEvent, context);
    ticks.push({
      startMs,
      ms: Math.round(performance.now() - at),
      rowsCreated: report.runs.created,
      enqueued: 'enqueued' in report.payouts ? report.payouts.enqueued : 0,
      failed: false,
    });
  } catch {
    ticks.push({
      startMs,
      ms: Math.round(performance.now() - at),
      rowsCreated: 0,
      enqueued: 0,
      failed: true,
    });
  }
};

interface LedgerOperation {
  readonly metadata: Record<string, unknown>;
}
const runOperations = async (): Promise<LedgerOperation[]> => {
  const response = await fetch(`${env.BENCH_PROVIDER_URL}/__sandbox/ledger`);
  const ledger = (await response.json()) as { operations: LedgerOperation[] };
  return ledger.operations.filter((operation) => operation.metadata.runId === runId);
};
const paidAtProvider = async (): Promise<number> => {
  const response = await fetch(`${env.BENCH_PROVIDER_URL}/__sandbox/stats`);
  const stats = (await response.json()) as { requests: Record<string, number>; rateLimited: number };
  return (stats.requests['/settlement/instant/payout'] ?? 0) - stats.rateLimited;
};

const cpuAtStart = cpuMeter.now();
const started = performance.now();
// The schedule, phase 0 at the approval (the worst case is a tick later).
let ticking: Promise<unknown> = tick();
const schedule = setInterval(() => {
  ticking = ticking.then(tick);
}, env.BENCH_TICK_MS);
let paid = await paidAtProvider();
let lastPaid = paid;
let lastProgressAt = performance.now();
while (paid < env.BENCH_ROWS && performance.now() - lastProgressAt < 300_000) {
  await new Promise((resolve) => setTimeout(resolve, 100));
  paid = await paidAtProvider();
  if (paid > lastPaid) {
    lastPaid = paid;
    lastProgressAt = performance.now();
  }
}
const drainSeconds = (performance.now() - started) / 1000;
clearInterval(schedule);
await ticking;
await workers.queue.idle();
const cpu = cpuMeter.since(cpuAtStart);

const operations = await runOperations();
const timesPaid = new Map<number, number>();
for (const operation of operations) {
  const row = Number(operation.metadata.runRow);
  timesPaid.set(row, (timesPaid.get(row) ?? 0) + 1);
}
const paidOnce = [...timesPaid.values()].filter((times) => times === 1).length;
const paidTwiceOrMore = [...timesPaid.values()].filter((times) => times > 1).length;
const sends = await (async () => {
  const response = await fetch(`${env.BENCH_PROVIDER_URL}/__sandbox/marked-requests`);
  const { requests } = (await response.json()) as { requests: { atMs: number; path: string }[] };
  return requests.filter((entry) => entry.path === '/settlement/instant/payout').map((entry) => entry.atMs);
})();
const view = await request('GET', `/payout-runs/${runId}`, {});
const counts = (view.body.counts ?? {}) as Record<string, number>;
const result: PayoutRunsRunResult = {
  rows: env.BENCH_ROWS,
  accepts,
  runState: String(view.body.status),
  approved: waited,
  ticks,
  firstSendMs: Math.min(...sends) - clockZero,
  lastSendMs: Math.max(...sends) - clockZero,
  drainSeconds,
  ledger: { paidOnce, paidTwiceOrMore, notPaid: env.BENCH_ROWS - paidOnce - paidTwiceOrMore },
  failedRows: counts.failed ?? 0,
  invocations: workers.queue.stats().invocations,
  processes: fleet.containers.length + 1,
  cpu,
};
writeFileSync(env.BENCH_RESULT_FILE, JSON.stringify(result));
await workers.stop();
fleet.stop();
api.send('stop');
setup.destroy();
process.exit(0);
