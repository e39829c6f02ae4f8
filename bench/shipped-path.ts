import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SWEEP_TICK_SECONDS } from '../infra/config/submission.js';
import { drainRatePerSecond, enqueuePerTick } from '../infra/config/submission-sizing.js';
import { HANDLERS } from '../infra/handlers.js';
import { stageConfigOf } from '../lib/local/submission-workers.js';
import { type BenchProvider, startSandboxProcess } from './sandbox-process.js';
import { type BenchResult, fixed, projectRoot, quick, withFreshDynamoDb } from './support.js';

/** The provider latency of the scenario. */
const LATENCY_MS = 200;
const BACKLOG = quick ? 500 : 10_000;
const RATE_LIMITED_BACKLOG = quick ? 500 : 5_000;
/**
 * The dev stage as deployed, read through the same parser as the stack: batch size, maximum concurrency,
 * per-tick maximum and the provider's rate limit R the fleet is paced to.
 */
const STAGE = 'dev';
const config = stageConfigOf(STAGE);
/** The sweeper's schedule and timeout as deployed; neither is compressed. */
const TICK_MS = SWEEP_TICK_SECONDS * 1000;
const SWEEP_TIMEOUT_MS = HANDLERS['sweep-due-payouts'].timeout.toMilliseconds();

interface RunResult {
  seconds: number;
  succeeded: number;
  failed: number;
  providerPaid: number;
  rateLimited: number;
  ticks: number;
  failedTicks: number;
  invocations: number;
  peakConcurrency: number;
  deadLetters: number;
  batchSize: number;
  maxConcurrency: number;
  /** With BENCH_TRACE=1: where the time went (bench/shipped-path-trace.ts). */
  trace?: Record<string, unknown>;
}

/** What `bench/results/latest.json` reports as `shippedPath`. */
export interface ShippedPathReport {
  readonly backlog: number;
  readonly latencyMs: number;
  readonly concurrency: number;
  readonly limitPerSecond: number;
  readonly measuredPerSecond: number;
  readonly ratioOfLimit: number;
  readonly secondsToDrain: number;
  readonly failedPayouts: number;
  /** The 1-minute load average before and after the run. */
  readonly loadAverage: readonly number[];
  readonly rateLimited: {
    readonly backlog: number;
    readonly limitPerSecond: number;
    readonly measuredPerSecond: number;
    readonly ratioOfLimit: number;
    readonly answered429: number;
    readonly failedPayouts: number;
    readonly loadAverage: readonly number[];
  };
}

/**
 * `BENCH_SHIPPED=open` or `BENCH_SHIPPED=rate-limited` runs only that half (a short iteration on the rate
 * limiter: ~2 minutes instead of ~6); the other half's figures are kept from the previous `shippedPath` entry,
 * with their own load average. Unset: both.
 */
const SHIPPED_PARTS = ['open', 'rate-limited'] as const;
type ShippedPart = (typeof SHIPPED_PARTS)[number];

function shippedPartsToRun(): readonly ShippedPart[] {
  const chosen = process.env.BENCH_SHIPPED;
  if (chosen === undefined || chosen === '') return SHIPPED_PARTS;
  const part = SHIPPED_PARTS.find((name) => name === chosen);
  if (!part) throw new Error(`BENCH_SHIPPED is ${chosen}; expected one of ${SHIPPED_PARTS.join(', ')}`);
  return [part];
}

function openFiguresOf(report: ShippedPathReport): Omit<ShippedPathReport, 'rateLimited'> {
  const { rateLimited: _, ...open } = report;
  return open;
}

async function runOnce(options: { backlog: number; providerLimit?: number }): Promise<RunResult> {
  return withFreshDynamoDb(async (endpoint) => {
    const provider: BenchProvider = await startSandboxProcess({ latencyMs: LATENCY_MS, projectRoot });
    try {
      if (options.providerLimit !== undefined) {
        await provider.injectFault({
          path: '/settlement/instant/payout',
          fault: 'rate-limit',
          perSecond: options.providerLimit,
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
            BENCH_SWEEP_TIMEOUT_MS: String(SWEEP_TIMEOUT_MS),
            BENCH_RESULT_FILE: resultFile,
            ...(process.env.BENCH_TRACE && { BENCH_TRACE: process.env.BENCH_TRACE }),
            ...(process.env.BENCH_TRACE_SENDS && { BENCH_TRACE_SENDS: process.env.BENCH_TRACE_SENDS }),
          },
          stdio: ['ignore', 'ignore', 'inherit'],
        },
      );
      const [code] = await once(child, 'exit');
      if (code !== 0) throw new Error(`shipped-path run exited with ${code}`);
      const result = JSON.parse(readFileSync(resultFile, 'utf8')) as RunResult;
      if (result.trace) process.stderr.write(`trace: ${JSON.stringify(result.trace, null, 2)}\n`);
      return result;
    } finally {
      await provider.close();
    }
  });
}

/**
 * The shipped composition at scale: a backlog of due payouts drained by the real handlers (the sweeper's ticks
 * enqueue, the workers pay) through the local SQS stand-in with the dev stage's settings (batch size, maximum
 * concurrency, per-tick maximum, the provider rate limit R its fleet is paced to), against the sandbox
 * answering after L ms; then the same with the sandbox also enforcing R (429 with Retry-After above it).
 */
export async function benchShippedPath(
  previous?: ShippedPathReport,
): Promise<BenchResult & { shippedPath: ShippedPathReport }> {
  const parts = shippedPartsToRun();
  if (parts.length < SHIPPED_PARTS.length && previous === undefined) {
    throw new Error('BENCH_SHIPPED runs one half only: the file has no shippedPath entry to keep the other');
  }
  const stageLimit = config.providerRateLimitPerSecond;
  if (stageLimit === undefined) throw new Error(`the ${STAGE} stage sets no providerRateLimitPerSecond`);
  const concurrency = config.submission.maxConcurrency * config.submission.batchSize;
  const limit = Math.min((concurrency * 1000) / LATENCY_MS, stageLimit);
  const loadBefore = loadavg()[0] ?? 0;
  const open = parts.includes('open') ? await runOnce({ backlog: BACKLOG }) : undefined;
  const loadBetween = loadavg()[0] ?? 0;
  const limited = parts.includes('rate-limited')
    ? await runOnce({ backlog: RATE_LIMITED_BACKLOG, providerLimit: stageLimit })
    : undefined;
  const loadAfter = loadavg()[0] ?? 0;
  const openReport = open
    ? {
        backlog: BACKLOG,
        latencyMs: LATENCY_MS,
        concurrency,
        limitPerSecond: fixed(limit, 1),
        measuredPerSecond: fixed(open.succeeded / open.seconds, 1),
        ratioOfLimit: fixed(open.succeeded / open.seconds / limit, 3),
        secondsToDrain: fixed(open.seconds, 1),
        failedPayouts: open.failed,
        loadAverage: [fixed(loadBefore, 2), fixed(loadBetween, 2)],
      }
    : undefined;
  const limitedReport = limited
    ? {
        backlog: RATE_LIMITED_BACKLOG,
        limitPerSecond: limit,
        measuredPerSecond: fixed(limited.succeeded / limited.seconds, 1),
        ratioOfLimit: fixed(limited.succeeded / limited.seconds / limit, 3),
        answered429: limited.rateLimited,
        failedPayouts: limited.failed,
        loadAverage: [fixed(loadBetween, 2), fixed(loadAfter, 2)],
      }
    : undefined;
  // A run of one half keeps the other half's figures from the previous entry (checked before running).
  const rateLimited = limitedReport ?? previous?.rateLimited;
  const openFigures = openReport ?? (previous && openFiguresOf(previous));
  if (!rateLimited || !openFigures) throw new Error('no shippedPath figures to keep for the half not run');
  const shippedPath: ShippedPathReport = { ...openFigures, rateLimited };
  const row = (label: string, run: RunResult, backlog: number, load: [number, number]) => ({
    run: label,
    backlog,
    'workers x batch': `${run.maxConcurrency} x ${run.batchSize}`,
    'L ms': LATENCY_MS,
    'limit /s': fixed(limit, 1),
    seconds: fixed(run.seconds, 1),
    'paid /s': fixed(run.succeeded / run.seconds, 1),
    'ratio of limit': fixed(run.succeeded / run.seconds / limit, 3),
    succeeded: run.succeeded,
    failed: run.failed,
    '429s': run.rateLimited,
    'ticks (failed)': `${run.ticks} (${run.failedTicks})`,
    invocations: run.invocations,
    'peak concurrency': run.peakConcurrency,
    'dead letters': run.deadLetters,
    'load avg (1 min)': `${fixed(load[0], 2)} -> ${fixed(load[1], 2)}`,
  });
  return {
    name: 'shipped-path',
    title: 'The shipped path: sweeper -> SQS FIFO (local stand-in) -> submit-payouts workers',
    rows: [
      ...(open ? [row(`paced to R = ${stageLimit}/s`, open, BACKLOG, [loadBefore, loadBetween])] : []),
      ...(limited
        ? [
            row(`provider also enforcing R (429 above it)`, limited, RATE_LIMITED_BACKLOG, [
              loadBetween,
              loadAfter,
            ]),
          ]
        : []),
    ],
    notes: [
      `The real functions/sweep-due-payouts.ts and functions/submit-payouts.ts handlers in a process of their own, with the ${STAGE} stage's settings read through infra/config/stage-config.ts (batch ${config.submission.batchSize}, maximum concurrency ${config.submission.maxConcurrency}, at most ${enqueuePerTick(config)} enqueued per tick, providerRateLimitPerSecond R = ${stageLimit}, drain rate ${drainRatePerSecond(config)}/s); the queue is the local SQS stand-in (visibility, redelivery, FIFO dedup), the provider the sandbox in its own process answering after L ms.`,
      `limit = min(maxConcurrency x batchSize / L, R). Nothing is compressed: the sweeper runs every ${TICK_MS / 1000} s with its ${SWEEP_TIMEOUT_MS / 1000} s timeout, the workers with theirs.`,
      "The backlog is created before the clock starts; the clock starts with the first tick and stops when the provider has paid every payout. BENCH_TRACE=1 prints where the time went (bench/shipped-path-trace.ts); BENCH_SHIPPED=open or rate-limited runs only that half and keeps the other half's figures from the previous entry.",
    ],
    shippedPath,
  };
}
