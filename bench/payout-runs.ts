import { cpus, loadavg } from 'node:os';
import { SWEEP_TICK_SECONDS } from '../infra/config/submission.js';
import { drainRatePerSecond, runRowsPerTick } from '../infra/config/submission-sizing.js';
import { HANDLERS } from '../infra/handlers.js';
import { API_DEADLINES } from '../lib/api/request-deadline.js';
import { stageConfigOf } from '../lib/local/submission-workers.js';
import { runCoordinator } from './coordinator.js';
import type { PayoutRunsRunResult } from './payout-runs-run.js';
import { type BenchResult, fixed, median, quick } from './support.js';

/** The provider latency of the scale issue's scenario, as bench/shipped-path.ts and bench/month-end.ts. */
const LATENCY_MS = 200;
const ROWS = quick ? 500 : 10_000;
const ACCEPTS = quick ? 3 : 9;
const config = stageConfigOf('dev');
const API_TIMEOUT_MS = HANDLERS['api-payout-runs'].timeout.toMilliseconds();
/** When the API answers whatever happens: the function's timeout less the margin (lib/api/request-deadline.ts). */
const DEADLINE_MS = API_TIMEOUT_MS - API_DEADLINES.marginMs;

/** What `bench/results/latest.json` reports as `payoutRuns`. */
export interface PayoutRunsReport {
  readonly rows: number;
  readonly accept: {
    readonly runs: number;
    readonly medianMs: number;
    readonly maxMs: number;
    readonly deadlineMs: number;
    readonly allAcceptedInTime: boolean;
    readonly fileBytes: number;
  };
  readonly firstSendMs: number;
  /** The run's sends, first to last: the pace it was paid at. */
  readonly sendingSeconds: number;
  readonly measuredPerSecond: number;
  readonly limitPerSecond: number;
  readonly ratioOfLimit: number;
  /** From the approval to the last row paid, the first tick's wait and materialisation included. */
  readonly approvalToPaidSeconds: number;
  readonly approvalToPaidRatioOfLimit: number;
  readonly rowsPerTick: number;
  readonly paidOnce: number;
  readonly doubled: number;
  readonly lost: number;
  readonly failedRows: number;
  readonly processes: number;
  readonly coresBusy: number;
  readonly loadAverage: readonly number[];
}

/**
 * A payroll run: BENCH_ACCEPTS files of 10,000 rows accepted by the real `api-payout-runs` (a process of its own),
 * one approved by a second person and paid by the real sweeper and `submit-payouts` fleet (a process per
 * container) against the sandbox at R, as bench/month-end.ts pays a month-end.
 */
export async function benchPayoutRuns(): Promise<BenchResult & { payoutRuns: PayoutRunsReport }> {
  const loadBefore = loadavg()[0] ?? 0;
  const run = await runCoordinator<PayoutRunsRunResult>('payout-runs-run.ts', {
    latencyMs: LATENCY_MS,
    env: {
      BENCH_ROWS: String(ROWS),
      BENCH_ACCEPTS: String(ACCEPTS),
      BENCH_TICK_MS: String(SWEEP_TICK_SECONDS * 1000),
      BENCH_SWEEP_TIMEOUT_MS: String(HANDLERS['sweep-due-payouts'].timeout.toMilliseconds()),
    },
  });
  const loadAfter = loadavg()[0] ?? 0;
  const limit = drainRatePerSecond(config);
  const times = run.accepts.map((accept) => accept.ms);
  const sendingSeconds = (run.lastSendMs - run.firstSendMs) / 1000;
  const measuredPerSecond = run.ledger.paidOnce / sendingSeconds;
  const machineSeconds = run.cpu.machine;
  const payoutRuns: PayoutRunsReport = {
    rows: run.rows,
    accept: {
      runs: run.accepts.length,
      medianMs: median(times),
      maxMs: Math.max(...times),
      deadlineMs: DEADLINE_MS,
      allAcceptedInTime: run.accepts.every((accept) => accept.status === 202 && accept.ms < DEADLINE_MS),
      fileBytes: run.accepts[0]?.bytes ?? 0,
    },
    firstSendMs: run.firstSendMs,
    sendingSeconds: fixed(sendingSeconds, 1),
    measuredPerSecond: fixed(measuredPerSecond, 1),
    limitPerSecond: limit,
    ratioOfLimit: fixed(measuredPerSecond / limit, 3),
    approvalToPaidSeconds: fixed(run.drainSeconds, 1),
    approvalToPaidRatioOfLimit: fixed(run.ledger.paidOnce / run.drainSeconds / limit, 3),
    rowsPerTick: runRowsPerTick(config),
    paidOnce: run.ledger.paidOnce,
    doubled: run.ledger.paidTwiceOrMore,
    lost: run.ledger.notPaid,
    failedRows: run.failedRows,
    processes: run.processes,
    coresBusy: fixed(machineSeconds / run.drainSeconds, 2),
    loadAverage: [fixed(loadBefore, 2), fixed(loadAfter, 2)],
  };
  return {
    name: 'payout-runs',
    title: `A payroll run of ${ROWS} rows: accepted by the API, approved, paid at R = ${limit}/s`,
    rows: [
      ...run.accepts.map((accept, index) => ({
        step: `accept file ${index + 1}`,
        rows: run.rows,
        bytes: accept.bytes,
        status: accept.status,
        ms: accept.ms,
        'within deadline': accept.status === 202 && accept.ms < DEADLINE_MS,
      })),
      {
        step: 'drain of the approved run',
        rows: run.rows,
        'first send ms': run.firstSendMs,
        'sending s': payoutRuns.sendingSeconds,
        'paid /s': payoutRuns.measuredPerSecond,
        'ratio of limit': payoutRuns.ratioOfLimit,
        'approval to paid s': payoutRuns.approvalToPaidSeconds,
        'ratio, approval to paid': payoutRuns.approvalToPaidRatioOfLimit,
        'paid once / twice / not': `${run.ledger.paidOnce} / ${run.ledger.paidTwiceOrMore} / ${run.ledger.notPaid}`,
        'run state': run.runState,
        'cores busy': `${payoutRuns.coresBusy} of ${cpus().length}`,
        'load avg (1 min)': `${fixed(loadBefore, 2)} -> ${fixed(loadAfter, 2)}`,
      },
      ...run.ticks
        .filter((tick) => tick.rowsCreated > 0 || tick.enqueued > 0)
        .map((tick, index) => ({
          step: `tick ${index + 1}`,
          'at s': fixed(tick.startMs / 1000, 1),
          'tick ms': tick.ms,
          'rows made payouts': tick.rowsCreated,
          enqueued: tick.enqueued,
        })),
    ],
    notes: [
      `Accept: the real functions/api-payout-runs.ts in a process of its own behind API Gateway's event shape on 127.0.0.1, each request given the function's ${API_TIMEOUT_MS / 1000} s as its time left; it answers by ${DEADLINE_MS / 1000} s whatever happens (503 past it). ${ACCEPTS} distinct files of ${ROWS} rows, one after another, timed as the client's round trip; median and max.`,
      `Drain: the first file approved by a second person; the real functions/sweep-due-payouts.ts every ${SWEEP_TICK_SECONDS} s from the approval (phase 0), turning at most ${runRowsPerTick(config)} rows a tick into payouts (RUN_ROWS_PER_TICK), and functions/submit-payouts.ts in ${config.submission.maxConcurrency} container processes (bench/fleet.ts); the sandbox in its own process answering after ${LATENCY_MS} ms; DynamoDB Local. Paid /s and ratio of limit: the run's sends from its first provider call to its last; approval to paid adds the wait for the first tick and its materialisation (at most 25 s of each tick's 120 s); paid once / twice / not: the rows in the sandbox's ledger by run id and row number. The other files are cancelled before the drain.`,
    ],
    payoutRuns,
  };
}
