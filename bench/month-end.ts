import { cpus, loadavg } from 'node:os';
import { SWEEP_TICK_SECONDS } from '../infra/config/submission.js';
import { enqueuePerTick } from '../infra/config/submission-sizing.js';
import { HANDLERS } from '../infra/handlers.js';
import { DISPATCH_STOP_STARTING_BEFORE_DEADLINE_MS } from '../lib/jobs/scheduled.js';
import { stageConfigOf } from '../lib/local/submission-workers.js';
import { runCoordinator } from './coordinator.js';
import { type DrainModel, modelDrain } from './month-end-model.js';
import type { MonthEndRunResult } from './month-end-run.js';
import { type BenchResult, fixed, quick } from './support.js';

/** The provider latency of the scenario, as bench/shipped-path.ts. */
const LATENCY_MS = 200;
const count = (name: string, fallback: number) => {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 2)
    throw new Error(`${name} is ${value}; expected a whole number >= 2`);
  return parsed;
};
/** The month-end paid in full (BENCH_MONTH_END_PAYOUTS; 20,000 is ~7 minutes of drain at R = 50/s). */
const DRAIN_PAYOUTS = count('BENCH_MONTH_END_PAYOUTS', quick ? 500 : 5_000);
/** The month-end released and enqueued, not paid (BENCH_MONTH_END_RELEASE; the 100,000). */
const RELEASE_PAYOUTS = count('BENCH_MONTH_END_RELEASE', quick ? 2_000 : 20_000);
const STAGE = 'dev';
const config = stageConfigOf(STAGE);
const TICK_MS = SWEEP_TICK_SECONDS * 1000;
const SWEEP_TIMEOUT_MS = HANDLERS['sweep-due-payouts'].timeout.toMilliseconds();
/** A tick starts no page after this much of its run (its timeout less the dispatch's reserve). */
const RELEASE_WINDOW_MS = SWEEP_TIMEOUT_MS - DISPATCH_STOP_STARTING_BEFORE_DEADLINE_MS;
/** SQS FIFO's deduplication window: a message queued longer is no longer dropped when a tick sends it again. */
const FIFO_WINDOW_SECONDS = 300;

/** What `bench/results/latest.json` reports as `monthEnd`. */
export interface MonthEndReport {
  readonly payouts: number;
  readonly firstSendMs: number;
  readonly measuredPerSecond: number;
  readonly limitPerSecond: number;
  readonly ratioOfLimit: number;
  readonly boundBy: string;
  readonly drainSeconds: number;
  readonly failed: number;
  readonly lost: number;
  readonly doubled: number;
  /** Worker invocations, and messages they were handed (copies queued again past FIFO's window included). */
  readonly invocations: number;
  readonly messagesDelivered?: number;
  readonly coresBusy: number;
  /** MODEL: seconds the workers would have waited on an empty queue had they drained this run's release at R. */
  readonly releaseStarvedSecondsAtR: number;
  readonly loadAverage: readonly number[];
  /** The release side of the month-end, measured: the real sweep's ticks with nothing consuming. */
  readonly release: {
    readonly payouts: number;
    readonly ticks: number;
    readonly tickMsMax: number;
    readonly tickWindowMs: number;
    readonly everyTickWithinWindow: boolean;
    readonly firstEnqueueMs: number;
    /** The release done, ticks placed on the every-minute schedule. */
    readonly secondsToReleaseAll: number;
    readonly enqueuedPerTick: number;
    readonly loadAverage: readonly number[];
  };
  /** MODEL: the drain of `release.payouts` from the measured release timeline at the measured drain rate. */
  readonly model: DrainModel & {
    readonly payouts: number;
    readonly ratioOfLimit: number;
    readonly label: string;
  };
  /** MODEL: the same release drained at R. */
  readonly modelAtR: DrainModel & { readonly ratioOfLimit: number };
}

/** min(maxConcurrency x batchSize / L, R): the rate the fleet is paced to. */
function limitPerSecond(): number {
  return Math.min(
    (config.submission.maxConcurrency * config.submission.batchSize * 1000) / LATENCY_MS,
    config.providerRateLimitPerSecond ?? Number.POSITIVE_INFINITY,
  );
}

/** One run of bench/month-end-run.ts against its own DynamoDB Local and sandbox process. */
export function runMonthEnd(mode: 'drain' | 'release', payouts: number): Promise<MonthEndRunResult> {
  return runCoordinator<MonthEndRunResult>('month-end-run.ts', {
    latencyMs: LATENCY_MS,
    env: {
      BENCH_PAYOUTS: String(payouts),
      BENCH_MODE: mode,
      BENCH_TICK_MS: String(TICK_MS),
      BENCH_SWEEP_TIMEOUT_MS: String(SWEEP_TIMEOUT_MS),
    },
  });
}

/**
 * The arrivals up to the month-end's `payouts` messages: later new ones are payouts queued again under a new
 * eligibility (a 429 given back), which the model of the release leaves out.
 */
function firstMessages(arrivals: readonly [number, number][], payouts: number): [number, number][] {
  const kept: [number, number][] = [];
  let total = 0;
  for (const [at, fresh] of arrivals) {
    if (total >= payouts) break;
    kept.push([at, Math.min(fresh, payouts - total)]);
    total += fresh;
  }
  return kept;
}

/**
 * The release run's enqueues of new messages, in seconds after D with each tick placed on the schedule (tick k
 * at k minutes): the ticks ran back to back, each as long as its invocation took.
 */
function scheduledArrivals(result: MonthEndRunResult): [number, number][] {
  return result.enqueues
    .filter(([, fresh]) => fresh > 0)
    .map(([atMs, fresh]) => {
      const index = result.ticks.findLastIndex((tick) => tick.startMs <= atMs);
      const tick = result.ticks[Math.max(0, index)];
      return [(Math.max(0, index) * TICK_MS + atMs - (tick?.startMs ?? 0)) / 1000, fresh];
    });
}

/**
 * A month-end: N scheduled payouts due at one instant, released by the real sweeper on its schedule and paid by
 * the real workers (a fleet of processes) against the sandbox at R; then the 100,000 released for real
 * with nothing consuming, and their drain modelled from that release at the measured rate.
 */
export async function benchMonthEnd(): Promise<BenchResult & { monthEnd: MonthEndReport }> {
  const loadBefore = loadavg()[0] ?? 0;
  const drain = await runMonthEnd('drain', DRAIN_PAYOUTS);
  const loadBetween = loadavg()[0] ?? 0;
  const release = await runMonthEnd('release', RELEASE_PAYOUTS);
  const loadAfter = loadavg()[0] ?? 0;
  return monthEndResultOf(drain, release, [loadBefore, loadBetween, loadAfter]);
}

/** The benchmark's table and `monthEnd` figures from its two runs and the 1-minute load around them. */
export function monthEndResultOf(
  drain: MonthEndRunResult,
  release: MonthEndRunResult,
  [loadBefore, loadBetween, loadAfter]: readonly [number, number, number],
): BenchResult & { monthEnd: MonthEndReport } {
  const drainPayouts = drain.payouts;
  const limit = limitPerSecond();

  const drainSeconds = drain.drainSeconds ?? drain.seconds;
  const measuredPerSecond = drain.succeeded / drainSeconds;
  const ratioOfLimit = measuredPerSecond / limit;
  const coresBusy = drain.cpu.machine / drain.seconds;
  const ledger = drain.ledger ?? { paidOnce: 0, paidTwiceOrMore: 0, notPaid: drainPayouts };
  // The drain run's own release, at R: did its queue ever run dry before the last send?
  const drainArrivals = drain.enqueues
    .filter(([, fresh]) => fresh > 0)
    .map(([at, fresh]): [number, number] => [at / 1000, fresh]);
  const ownRelease = modelDrain(firstMessages(drainArrivals, drainPayouts), limit);
  // The first that holds names the bound: the provider's limit, this machine's CPU (every core busy), the release.
  const boundBy =
    ratioOfLimit >= 0.9
      ? 'provider limit R'
      : coresBusy >= 0.9 * cpus().length
        ? `this machine's CPU (${fixed(coresBusy, 2)} of ${cpus().length} cores busy)`
        : ownRelease.starvedSeconds > 1
          ? "the sweep's release"
          : 'not found: neither R, the CPU nor the release';

  const arrivals = firstMessages(scheduledArrivals(release), release.payouts);
  const released = release.ticks.reduce((sum, tick) => sum + tick.released, 0);
  const lastTick = release.ticks.findLastIndex((tick) => tick.released > 0);
  const tickMsMax = Math.max(...release.ticks.map((tick) => tick.ms));
  const lastRelease = release.ticks[lastTick];
  const modelRate = Math.min(measuredPerSecond, limit);
  const model = modelDrain(arrivals, modelRate, FIFO_WINDOW_SECONDS);
  // The same release drained at R: the design's figure where the machine does not bind.
  const atR = modelDrain(arrivals, limit, FIFO_WINDOW_SECONDS);
  const monthEnd: MonthEndReport = {
    payouts: drainPayouts,
    firstSendMs: drain.firstSendMs ?? Number.NaN,
    measuredPerSecond: fixed(measuredPerSecond, 1),
    limitPerSecond: limit,
    ratioOfLimit: fixed(ratioOfLimit, 3),
    boundBy,
    drainSeconds: fixed(drainSeconds, 1),
    failed: drain.failed,
    lost: ledger.notPaid,
    doubled: ledger.paidTwiceOrMore,
    ...(drain.messagesDelivered !== undefined && { messagesDelivered: drain.messagesDelivered }),
    invocations: drain.invocations,
    coresBusy: fixed(coresBusy, 2),
    releaseStarvedSecondsAtR: fixed(ownRelease.starvedSeconds, 1),
    loadAverage: [fixed(loadBefore, 2), fixed(loadBetween, 2)],
    release: {
      payouts: released,
      ticks: lastTick + 1,
      tickMsMax,
      tickWindowMs: RELEASE_WINDOW_MS,
      everyTickWithinWindow: release.ticks.every((tick) => !tick.failed && tick.ms <= SWEEP_TIMEOUT_MS),
      firstEnqueueMs: release.enqueues[0]?.[0] ?? Number.NaN,
      secondsToReleaseAll: fixed((lastTick * TICK_MS + (lastRelease?.ms ?? 0)) / 1000, 1),
      enqueuedPerTick: enqueuePerTick(config),
      loadAverage: [fixed(loadBetween, 2), fixed(loadAfter, 2)],
    },
    model: {
      label: `MODEL: ${released} released as measured, drained at the measured ${fixed(modelRate, 1)}/s`,
      payouts: released,
      drainSeconds: fixed(model.drainSeconds, 1),
      perSecond: fixed(model.perSecond, 1),
      ratioOfLimit: fixed(model.perSecond / limit, 3),
      starvedSeconds: fixed(model.starvedSeconds, 1),
      peakQueueDepth: Math.round(model.peakQueueDepth),
      longestWaitSeconds: fixed(model.longestWaitSeconds, 1),
      queuedPastWindow: model.queuedPastWindow,
    },
    modelAtR: {
      drainSeconds: fixed(atR.drainSeconds, 1),
      perSecond: fixed(atR.perSecond, 1),
      ratioOfLimit: fixed(atR.perSecond / limit, 3),
      starvedSeconds: fixed(atR.starvedSeconds, 1),
      peakQueueDepth: Math.round(atR.peakQueueDepth),
      longestWaitSeconds: fixed(atR.longestWaitSeconds, 1),
      queuedPastWindow: atR.queuedPastWindow,
    },
  };
  const cpuPerPayout = (seconds: number) => fixed((seconds * 1000) / Math.max(1, drain.succeeded), 1);
  return {
    name: 'month-end',
    title: `A month-end: payouts scheduled for one instant, released by the sweeper and paid at R = ${limit}/s`,
    rows: [
      {
        run: 'measured: released and paid',
        payouts: drainPayouts,
        'first send ms': monthEnd.firstSendMs,
        'drain s': monthEnd.drainSeconds,
        'paid /s': monthEnd.measuredPerSecond,
        'ratio of limit': monthEnd.ratioOfLimit,
        'failed / lost / doubled': `${drain.failed} / ${ledger.notPaid} / ${ledger.paidTwiceOrMore}`,
        'still scheduled': drain.stillScheduled,
        ticks: drain.ticks.length,
        'tick ms (max)': Math.max(...drain.ticks.map((tick) => tick.ms)),
        'sent again by later ticks': drain.enqueues.reduce((sum, [, , again]) => sum + again, 0),
        'messages delivered': drain.messagesDelivered ?? 'not recorded',
        'CPU ms / payout (containers, coord, ddb, sandbox)': [
          drain.cpu.containers,
          drain.cpu.coordinator,
          drain.cpu.dynamoDbLocal,
          drain.cpu.provider,
        ]
          .map(cpuPerPayout)
          .join(' / '),
        'cores busy': `${monthEnd.coresBusy} of ${cpus().length}`,
        'bound by': boundBy,
        'MODEL: queue dry at R s': monthEnd.releaseStarvedSecondsAtR,
        'load avg (1 min)': `${fixed(loadBefore, 2)} -> ${fixed(loadBetween, 2)}`,
      },
      {
        run: 'measured: released and enqueued, nothing consuming',
        payouts: released,
        'first enqueue ms': monthEnd.release.firstEnqueueMs,
        ticks: monthEnd.release.ticks,
        'tick ms (max)': tickMsMax,
        'release done s (on schedule)': monthEnd.release.secondsToReleaseAll,
        'still scheduled': release.stillScheduled,
        'load avg (1 min)': `${fixed(loadBetween, 2)} -> ${fixed(loadAfter, 2)}`,
      },
      {
        run: 'MODEL: its drain at the measured rate',
        payouts: released,
        'drain s': monthEnd.model.drainSeconds,
        'paid /s': monthEnd.model.perSecond,
        'ratio of limit': monthEnd.model.ratioOfLimit,
        'queue starved s': monthEnd.model.starvedSeconds,
        'peak queue depth': monthEnd.model.peakQueueDepth,
        'longest wait in queue s': monthEnd.model.longestWaitSeconds,
        [`queued past FIFO's ${FIFO_WINDOW_SECONDS} s`]: monthEnd.model.queuedPastWindow,
      },
      {
        run: `MODEL: its drain at R = ${limit}/s`,
        payouts: released,
        'drain s': monthEnd.modelAtR.drainSeconds,
        'paid /s': monthEnd.modelAtR.perSecond,
        'ratio of limit': monthEnd.modelAtR.ratioOfLimit,
        'queue starved s': monthEnd.modelAtR.starvedSeconds,
        'peak queue depth': monthEnd.modelAtR.peakQueueDepth,
        'longest wait in queue s': monthEnd.modelAtR.longestWaitSeconds,
        [`queued past FIFO's ${FIFO_WINDOW_SECONDS} s`]: monthEnd.modelAtR.queuedPastWindow,
      },
      ...release.ticks.slice(0, lastTick + 1).map((tick, index) => ({
        run: `release tick ${index + 1}`,
        released: tick.released,
        enqueued: tick.enqueued,
        'tick ms': tick.ms,
      })),
    ],
    notes: [
      `The real functions/sweep-due-payouts.ts (every ${TICK_MS / 1000} s, its ${SWEEP_TIMEOUT_MS / 1000} s timeout; a tick starts no page after ${RELEASE_WINDOW_MS / 1000} s) and functions/submit-payouts.ts in ${config.submission.maxConcurrency} container processes (bench/fleet-container.ts), the ${STAGE} stage's settings (batch ${config.submission.batchSize}, at most ${enqueuePerTick(config)} enqueued per tick, R = ${config.providerRateLimitPerSecond}/s); the sandbox in its own process answering after ${LATENCY_MS} ms; DynamoDB Local.`,
      "Seeded before the clock (not timed): one payout created through the engine, the rest copies with their own ids written by the store codec in BatchWriteItems, all scheduled for one instant D. The first tick runs at D (the every-minute schedule in phase with a month-end at 00:00; out of phase, the first send waits up to one tick more). first send: D to the first provider call (the sandbox's marked requests). Drain: D to the last payout paid. failed: payouts failed in the table; lost / doubled: payouts the sandbox ledger holds zero / two or more times.",
      `Release run: no consumer, the ticks back to back, each timed as its invocation; on the schedule tick k starts at k minutes. MODEL (labelled so): the queue fed by that measured release timeline and drained at the drain run's measured rate; "longest wait" against SQS FIFO's ${FIFO_WINDOW_SECONDS} s deduplication window. BENCH_MONTH_END_PAYOUTS and BENCH_MONTH_END_RELEASE set the two N.`,
    ],
    monthEnd,
  };
}
