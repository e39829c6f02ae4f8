/**
 * One run of the shipped-path benchmark, in a process of its own (a fresh "container": the handlers build their
 * runtime from process.env once). The real `functions/sweep-due-payouts.ts` handler enqueues the backlog
 * through the SQS client to the local queue stand-in, which invokes the real `functions/submit-payouts.ts` with
 * the dev stage's batch size and maximum concurrency. Writes its measurements as JSON to BENCH_RESULT_FILE.
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { ensureTable } from '../lib/local/create-table.js';
import { localAwsConfig } from '../lib/local/dynamodb-local.js';
import { stageConfigOf, startLocalSubmissionWorkers } from '../lib/local/submission-workers.js';
import { PayoutStatus } from '../lib/payouts/model.js';
import { runtimeFromProcessEnv } from '../lib/runtime/runtime.js';
import { createDynamoDbClient } from '../lib/shared/dynamodb-client.js';
import { silentLogger } from '../lib/shared/logger.js';
import * as z from '../lib/shared/zod.js';
import { bankTransfer, createCommand, forEachConcurrently } from './support.js';

const Env = z.object({
  BENCH_DDB_ENDPOINT: z.url(),
  BENCH_PROVIDER_URL: z.url(),
  BENCH_PROVIDER_TOKEN: z.string(),
  BENCH_PROVIDER_PIN: z.string(),
  BENCH_BACKLOG: z.coerce.number().check(z.int(), z.positive()),
  BENCH_RATE_LIMIT: z.optional(z.coerce.number().check(z.int(), z.positive())),
  BENCH_TICK_MS: z.coerce.number().check(z.int(), z.positive()),
  BENCH_RESULT_FILE: z.string(),
});
const env = Env.parse(process.env);

const tableName = `bench-shipped-${process.pid}`;
const setup = createDynamoDbClient({ endpoint: env.BENCH_DDB_ENDPOINT, ...localAwsConfig });
await ensureTable(setup, tableName);
const config = stageConfigOf('dev');
const workers = await startLocalSubmissionWorkers({
  config,
  loadWorker: async () => (await import('../functions/submit-payouts.js')).handler,
  logger: silentLogger,
  pollIntervalMs: 200,
});
Object.assign(process.env, {
  TABLE_NAME: tableName,
  DYNAMODB_ENDPOINT: env.BENCH_DDB_ENDPOINT,
  PROVIDER_BASE_URL: env.BENCH_PROVIDER_URL,
  PROVIDER_TOKEN: env.BENCH_PROVIDER_TOKEN,
  PROVIDER_PIN: env.BENCH_PROVIDER_PIN,
  ...workers.environment,
  ...(env.BENCH_RATE_LIMIT !== undefined && { PROVIDER_RATE_LIMIT_PER_SECOND: String(env.BENCH_RATE_LIMIT) }),
});
// The handlers log every payout as they do in Lambda; here that output goes nowhere.
process.stdout.write = () => true;
const runtime = runtimeFromProcessEnv();

// The backlog: pending payouts, created before the clock starts (not timed).
await forEachConcurrently(env.BENCH_BACKLOG, 32, (index) =>
  runtime.engine.create(createCommand(bankTransfer(), `shipped-${index}`)),
);

const sweeper = (await import('../functions/sweep-due-payouts.js')).handler;
const scheduledEvent = { 'detail-type': 'Scheduled Event', source: 'aws.scheduler' } as ScheduledEvent;
const tick = () => {
  const deadline = performance.now() + 120_000;
  const context = { getRemainingTimeInMillis: () => deadline - performance.now() } as Context;
  return sweeper(scheduledEvent, context);
};

const paidAtProvider = async (): Promise<{ paid: number; rateLimited: number }> => {
  const response = await fetch(`${env.BENCH_PROVIDER_URL}/__sandbox/stats`);
  const stats = (await response.json()) as { requests: Record<string, number>; rateLimited: number };
  const calls = stats.requests['/settlement/instant/payout'] ?? 0;
  return { paid: calls - stats.rateLimited, rateLimited: stats.rateLimited };
};

const started = performance.now();
let ticks = 0;
let ticking: Promise<unknown> = Promise.resolve();
// The every-minute schedule, compressed to BENCH_TICK_MS: the first tick enqueues the whole backlog; later ticks
// only re-enqueue payouts a 429 sent back (FIFO drops the rest as duplicates), so compression does not change
// the drain rate, only how soon a rate-limited payout is offered again.
const schedule = setInterval(() => {
  ticking = ticking.then(() => {
    ticks++;
    return tick();
  });
}, env.BENCH_TICK_MS);
ticks++;
ticking = tick();
let provider = await paidAtProvider();
while (provider.paid < env.BENCH_BACKLOG) {
  await new Promise((resolve) => setTimeout(resolve, 100));
  provider = await paidAtProvider();
}
const seconds = (performance.now() - started) / 1000;
clearInterval(schedule);
await ticking;
await workers.queue.idle();
const succeeded = await runtime.store.countByStatus(PayoutStatus.Succeeded, env.BENCH_BACKLOG + 1);
const failed = await runtime.store.countByStatus(PayoutStatus.Failed, env.BENCH_BACKLOG + 1);
const stats = workers.queue.stats();
writeFileSync(
  env.BENCH_RESULT_FILE,
  JSON.stringify({
    seconds,
    succeeded,
    failed,
    providerPaid: provider.paid,
    rateLimited: provider.rateLimited,
    ticks,
    invocations: stats.invocations,
    peakConcurrency: stats.peakConcurrency,
    deadLetters: stats.deadLetters,
    batchSize: config.submission.batchSize,
    maxConcurrency: config.submission.maxConcurrency,
  }),
);
await workers.stop();
await runtime.close();
setup.destroy();
process.exit(0);
