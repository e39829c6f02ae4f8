import { cpus, loadavg } from 'node:os';
import { SWEEP_TICK_SECONDS } from '../infra/config/submission.js';
import { drainRatePerSecond, enqueuePerTick } from '../infra/config/submission-sizing.js';
import { HANDLERS } from '../infra/handlers.js';
import { stageConfigOf } from '../lib/local/submission-workers.js';
import { runCoordinator } from './coordinator.js';
import type { ContainerReport } from './fleet-container.js';
import { type BenchResult, fixed, quick } from './support.js';

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
  /** Each container a process of its own (bench/fleet-container.ts), and where the machine's CPU went. */
  fleet: FleetFigures;
  /** With BENCH_TRACE=1: where the time went (bench/shipped-path-trace.ts). */
  trace?: Record<string, unknown>;
}

/** The fleet of one run, as bench/shipped-path-run.ts measures it. */
interface FleetFigures {
  readonly processes: number;
  readonly containers: readonly ContainerReport[];
  /** CPU seconds over the timed window: the coordinator, all containers, DynamoDB Local, the sandbox, the machine. */
  readonly cpu: Record<'coordinator' | 'containers' | 'dynamoDbLocal' | 'provider' | 'machine', number>;
}

/** A run's fleet as reported: per container, and the CPU ceiling of this machine. */
export interface FleetReport {
  readonly perContainer: readonly {
    readonly invocations: number;
    readonly messages: number;
    readonly retried: number;
    readonly coldStartMs: number;
    readonly meanInvocationMs: number;
    readonly cpuSeconds: number;
    readonly rssMb: number;
  }[];
  /** CPU milliseconds per paid payout, by process, over the timed window. */
  readonly cpuMsPerPayout: Record<
    'containers' | 'coordinator' | 'dynamoDbLocal' | 'provider' | 'ours',
    number
  >;
  /** Cores busy on average over the window: the run's own processes, and everything else on the machine. */
  readonly coresBusy: { readonly ours: number; readonly others: number; readonly of: number };
  /** Payouts/s this machine could sustain if the run had every core: cores / (ours' CPU s per payout). */
  readonly cpuCeilingPerSecond: number;
  /** The same without the containers' cold starts (their imports): the ceiling of a warm fleet. */
  readonly warmCpuCeilingPerSecond: number;
  /** CPU seconds of all cold starts together. */
  readonly coldStartCpuSeconds: number;
}

function fleetReportOf(run: RunResult): FleetReport {
  const { cpu, containers } = run.fleet;
  const ours = cpu.containers + cpu.coordinator + cpu.dynamoDbLocal + cpu.provider;
  const cold = containers.reduce((sum, container) => sum + container.coldStartCpuSeconds, 0);
  const perPayout = (seconds: number) => fixed((seconds * 1000) / Math.max(1, run.succeeded), 2);
  const cores = cpus().length;
  return {
    perContainer: containers.map(
      ({ invocations, messages, retried, coldStartMs, meanInvocationMs, cpuSeconds, rssMb }) => ({
        invocations,
        messages,
        retried,
        coldStartMs,
        meanInvocationMs,
        cpuSeconds,
        rssMb,
      }),
    ),
    cpuMsPerPayout: {
      containers: perPayout(cpu.containers),
      coordinator: perPayout(cpu.coordinator),
      dynamoDbLocal: perPayout(cpu.dynamoDbLocal),
      provider: perPayout(cpu.provider),
      ours: perPayout(ours),
    },
    coresBusy: {
      ours: fixed(ours / run.seconds, 2),
      others: fixed(Math.max(0, cpu.machine - ours) / run.seconds, 2),
      of: cores,
    },
    cpuCeilingPerSecond: fixed((cores * Math.max(1, run.succeeded)) / Math.max(ours, 0.001), 1),
    warmCpuCeilingPerSecond: fixed((cores * Math.max(1, run.succeeded)) / Math.max(ours - cold, 0.001), 1),
    coldStartCpuSeconds: fixed(cold, 2),
  };
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
  /** Container processes of the open run (each a Lambda container of submit-payouts: bench/fleet-container.ts). */
  readonly fleetProcesses: number;
  /** The open run's fleet: each container's figures, and where this machine's CPU went. */
  readonly fleet: FleetReport;
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
  const result = await runCoordinator<RunResult>('shipped-path-run.ts', {
    latencyMs: LATENCY_MS,
    env: {
      BENCH_BACKLOG: String(options.backlog),
      BENCH_TICK_MS: String(TICK_MS),
      BENCH_SWEEP_TIMEOUT_MS: String(SWEEP_TIMEOUT_MS),
      ...(process.env.BENCH_TRACE && { BENCH_TRACE: process.env.BENCH_TRACE }),
      ...(process.env.BENCH_TRACE_SENDS && { BENCH_TRACE_SENDS: process.env.BENCH_TRACE_SENDS }),
    },
    ...(options.providerLimit !== undefined && {
      faults: [
        {
          path: '/settlement/instant/payout',
          fault: 'rate-limit',
          perSecond: options.providerLimit,
          times: 0,
        },
      ],
    }),
  });
  if (result.trace) process.stderr.write(`trace: ${JSON.stringify(result.trace, null, 2)}\n`);
  return result;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
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
        fleetProcesses: open.fleet.processes,
        fleet: fleetReportOf(open),
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
    containers: run.fleet.processes,
    'cold start ms (median)': median(run.fleet.containers.map((container) => container.coldStartMs)),
    'CPU ms / payout (containers, coord, ddb, sandbox)': [
      run.fleet.cpu.containers,
      run.fleet.cpu.coordinator,
      run.fleet.cpu.dynamoDbLocal,
      run.fleet.cpu.provider,
    ]
      .map((seconds) => fixed((seconds * 1000) / Math.max(1, run.succeeded), 1))
      .join(' / '),
    'cores busy (ours / others)': `${fixed(fleetReportOf(run).coresBusy.ours, 2)} / ${fixed(fleetReportOf(run).coresBusy.others, 2)}`,
    'CPU ceiling /s (warm)': `${fleetReportOf(run).cpuCeilingPerSecond} (${fleetReportOf(run).warmCpuCeilingPerSecond})`,
    'load avg (1 min)': `${fixed(load[0], 2)} -> ${fixed(load[1], 2)}`,
  });
  const containerRows = (label: string, run: RunResult) =>
    run.fleet.containers.map((container, index) => ({
      run: `${label}: container ${index + 1}`,
      invocations: container.invocations,
      messages: container.messages,
      're-delivered': container.retried,
      'cold start ms': container.coldStartMs,
      'mean invocation ms': container.meanInvocationMs,
      'CPU s': fleetReportOf(run).perContainer[index]?.cpuSeconds ?? 0,
      'RSS MB': container.rssMb,
    }));
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
      ...(open ? containerRows('open', open) : []),
    ],
    notes: [
      `A fleet, not a process: each submit-payouts container is a Node process of its own (bench/fleet-container.ts: its own module instance, runtime, provider connection pool, write coalescer and event loop; the handler imported on its first invocation, its cold start). A coordinator process (bench/shipped-path-run.ts) runs the sweeper (a function of its own in AWS, one invocation at a time) and holds the queue model (lib/local/local-sqs-queue.ts): it hands each batch to an idle container over IPC, as Lambda's poller invokes one, and deletes or redelivers by the container's partial batch response. All containers share one DynamoDB Local and the sandbox, over 127.0.0.1.`,
      `CPU: each process's user + system seconds over the timed window (/proc), per paid payout; "cores busy (others)" is the rest of the machine (/proc/stat) in the same window. CPU ceiling = cores / (the run's CPU seconds per payout): the rate this ${cpus().length}-core machine could sustain with every core to itself; a ratio below 0.9 with the ceiling near the limit, or with others' cores busy, is the machine's, not the design's.`,
      `The real functions/sweep-due-payouts.ts and functions/submit-payouts.ts handlers, with the ${STAGE} stage's settings read through infra/config/stage-config.ts (batch ${config.submission.batchSize}, maximum concurrency ${config.submission.maxConcurrency}, at most ${enqueuePerTick(config)} enqueued per tick, providerRateLimitPerSecond R = ${stageLimit}, drain rate ${drainRatePerSecond(config)}/s); the queue is the local SQS stand-in (visibility, redelivery, FIFO dedup), the provider the sandbox in its own process answering after L ms.`,
      `limit = min(maxConcurrency x batchSize / L, R). Nothing is compressed: the sweeper runs every ${TICK_MS / 1000} s with its ${SWEEP_TIMEOUT_MS / 1000} s timeout, the workers with theirs.`,
      "The backlog is created before the clock starts; the clock starts with the first tick and stops when the provider has paid every payout. BENCH_TRACE=1 prints where the time went (bench/shipped-path-trace.ts); BENCH_SHIPPED=open or rate-limited runs only that half and keeps the other half's figures from the previous entry.",
    ],
    shippedPath,
  };
}
