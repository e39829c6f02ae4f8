import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BenchProvider, startSandboxProcess } from './sandbox-process.js';
import { type BenchResult, fixed, projectRoot, quick, withFreshDynamoDb } from './support.js';

/** The provider latency of the scenario. */
const LATENCY_MS = 200;
const BACKLOG = quick ? 500 : 10_000;
/** The rate-limited run: the provider answers 429 above R requests/s; the stage's limit is set to R. */
const RATE_LIMIT = 50;
const RATE_LIMITED_BACKLOG = quick ? 200 : 2_000;
/** The every-minute sweeper schedule, compressed (see bench/shipped-path-run.ts). */
const TICK_MS = 5_000;

interface RunResult {
  seconds: number;
  succeeded: number;
  failed: number;
  providerPaid: number;
  rateLimited: number;
  ticks: number;
  invocations: number;
  peakConcurrency: number;
  deadLetters: number;
  batchSize: number;
  maxConcurrency: number;
}

/** What `bench/results/latest.json` reports as `shippedPath`. */
export interface ShippedPathReport {
  readonly backlog: number;
  readonly latencyMs: number;
  readonly concurrency: number;
  readonly limitPerSecond: number;
  readonly measuredPerSecond: number;
  readonly ratioOfLimit: number;
  readonly failedPayouts: number;
  readonly rateLimited: {
    readonly backlog: number;
    readonly limitPerSecond: number;
    readonly measuredPerSecond: number;
    readonly ratioOfLimit: number;
    readonly answered429: number;
    readonly failedPayouts: number;
  };
}

async function runOnce(options: { backlog: number; rateLimit?: number }): Promise<RunResult> {
  return withFreshDynamoDb(async (endpoint) => {
    const provider: BenchProvider = await startSandboxProcess({ latencyMs: LATENCY_MS, projectRoot });
    try {
      if (options.rateLimit !== undefined) {
        await provider.injectFault({
          path: '/settlement/instant/payout',
          fault: 'rate-limit',
          perSecond: options.rateLimit,
          times: 0,
        });
      }
      const resultFile = join(mkdtempSync(join(tmpdir(), 'bench-shipped-')), 'result.json');
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', join(projectRoot, 'bench', 'shipped-path-run.ts')],
        {
          cwd: projectRoot,
          env: {
            PATH: process.env.PATH,
            HOME: process.env.HOME,
            AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
            BENCH_DDB_ENDPOINT: endpoint,
            BENCH_PROVIDER_URL: provider.url,
            BENCH_PROVIDER_TOKEN: provider.token,
            BENCH_PROVIDER_PIN: provider.pin,
            BENCH_BACKLOG: String(options.backlog),
            BENCH_TICK_MS: String(TICK_MS),
            BENCH_RESULT_FILE: resultFile,
            ...(options.rateLimit !== undefined && { BENCH_RATE_LIMIT: String(options.rateLimit) }),
          },
          stdio: ['ignore', 'ignore', 'inherit'],
        },
      );
      const [code] = await once(child, 'exit');
      if (code !== 0) throw new Error(`shipped-path run exited with ${code}`);
      return JSON.parse(readFileSync(resultFile, 'utf8')) as RunResult;
    } finally {
      await provider.close();
    }
  });
}

/**
 * The shipped composition at scale: a backlog of due payouts drained by the real handlers (the sweeper's tick
 * enqueues, the workers pay) through the local SQS stand-in with the dev stage's batch size and maximum
 * concurrency, against the sandbox answering after L ms; then the same with the provider limited to R
 * requests/s (429 above it) and the stage's `providerRateLimitPerSecond` set to R.
 */
export async function benchShippedPath(): Promise<BenchResult & { shippedPath: ShippedPathReport }> {
  const open = await runOnce({ backlog: BACKLOG });
  const concurrency = open.maxConcurrency * open.batchSize;
  const limit = concurrency / (LATENCY_MS / 1000);
  const measured = open.succeeded / open.seconds;
  const limited = await runOnce({ backlog: RATE_LIMITED_BACKLOG, rateLimit: RATE_LIMIT });
  const limitedLimit = Math.min(concurrency / (LATENCY_MS / 1000), RATE_LIMIT);
  const limitedMeasured = limited.succeeded / limited.seconds;
  const shippedPath: ShippedPathReport = {
    backlog: BACKLOG,
    latencyMs: LATENCY_MS,
    concurrency,
    limitPerSecond: fixed(limit, 1),
    measuredPerSecond: fixed(measured, 1),
    ratioOfLimit: fixed(measured / limit, 3),
    failedPayouts: open.failed,
    rateLimited: {
      backlog: RATE_LIMITED_BACKLOG,
      limitPerSecond: limitedLimit,
      measuredPerSecond: fixed(limitedMeasured, 1),
      ratioOfLimit: fixed(limitedMeasured / limitedLimit, 3),
      answered429: limited.rateLimited,
      failedPayouts: limited.failed,
    },
  };
  const row = (label: string, run: RunResult, limitPerSecond: number, backlog: number) => ({
    run: label,
    backlog,
    'workers x batch': `${run.maxConcurrency} x ${run.batchSize}`,
    'L ms': LATENCY_MS,
    'limit /s': fixed(limitPerSecond, 1),
    seconds: fixed(run.seconds, 1),
    'paid /s': fixed(run.succeeded / run.seconds, 1),
    'ratio of limit': fixed(run.succeeded / run.seconds / limitPerSecond, 3),
    succeeded: run.succeeded,
    failed: run.failed,
    '429s': run.rateLimited,
    invocations: run.invocations,
    'peak concurrency': run.peakConcurrency,
    'dead letters': run.deadLetters,
  });
  return {
    name: 'shipped-path',
    title: 'The shipped path: sweeper -> SQS FIFO (local stand-in) -> submit-payouts workers',
    rows: [
      row('open', open, limit, BACKLOG),
      row(`provider limited to ${RATE_LIMIT}/s`, limited, limitedLimit, RATE_LIMITED_BACKLOG),
    ],
    notes: [
      'The real functions/sweep-due-payouts.ts and functions/submit-payouts.ts handlers, in a process of their own, with the dev stage batch size and maximum concurrency; the queue is the local SQS stand-in (visibility, redelivery, FIFO dedup), the provider the sandbox in its own process answering after L ms.',
      `limit = min(maxConcurrency x batchSize / L, provider rate limit); the schedule (every minute) is compressed to ${TICK_MS / 1000} s, which only changes how soon a payout sent back by a 429 is offered again.`,
      'The backlog is created before the clock starts; the clock stops when the provider has paid every payout.',
    ],
    shippedPath,
  };
}
