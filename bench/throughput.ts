import { performance } from 'node:perf_hooks';
import { CapacityMeter } from './capacity-meter.js';
import {
  type BenchResult,
  bankTransfer,
  createCommand,
  fixed,
  forEachConcurrently,
  quick,
  type Row,
  startEngineRig,
} from './support.js';

export interface ThroughputCase {
  /** Provider calls in flight at once (the sweep's `concurrency`). */
  readonly concurrency: number;
  /** The sandbox's fixed latency per provider response. */
  readonly latencyMs: number;
  /** Due payouts swept. */
  readonly payouts: number;
}

export const defaultThroughputCases: readonly ThroughputCase[] = quick
  ? [{ concurrency: 32, latencyMs: 200, payouts: 400 }]
  : [
      { concurrency: 8, latencyMs: 200, payouts: 1_000 },
      { concurrency: 32, latencyMs: 200, payouts: 1_000 },
      // The ceiling of engine + DynamoDB Local on this machine: no provider latency at all.
      { concurrency: 32, latencyMs: 0, payouts: 500 },
    ];

/** Bounds the sweeps per case: a sweep takes at most one Query page of due work. */
const MAX_SWEEPS = 200;

/**
 * Throughput against the limit C/L: N pending payouts are created (not timed), then sweeps with concurrency C
 * run until all are sent, against a sandbox that answers every provider call after L ms.
 */
export async function benchThroughput(
  endpoint: string,
  cases: readonly ThroughputCase[] = defaultThroughputCases,
): Promise<BenchResult> {
  const rows: Row[] = [];
  for (const testCase of cases) {
    process.stderr.write(
      `  throughput C=${testCase.concurrency} L=${testCase.latencyMs} N=${testCase.payouts}\n`,
    );
    rows.push(await runCase(endpoint, testCase));
  }
  return {
    name: 'throughput',
    title: 'Throughput of the due-payout sweeper vs the limit C/L',
    rows,
    notes: [
      'limit = C / L payouts per second: C provider calls in flight, each answered after L ms; ratio = achieved / limit (target >= 0.9).',
      'Each payout: claim (TransactWriteItems) -> provider call -> record (TransactWriteItems); the sweep reads due work with one Query page per sweep.',
      'ms/payout/worker = C / achieved: how long one worker spends per payout; L of it is the provider, the rest is mostly the two transactions.',
      'The L = 0 row is the ceiling of engine + DynamoDB Local on this machine; no sweep can beat it whatever C/L says.',
      'node cpu %: CPU of this one Node process (engine, SDK, sandbox) over the wall time; 100 % = one core.',
      'ddb ms/write: mean client-side latency of one TransactWriteItems against DynamoDB Local (Java, sharing the 2 cores with the rest of the run).',
    ],
  };
}

async function runCase(endpoint: string, { concurrency, latencyMs, payouts }: ThroughputCase): Promise<Row> {
  const rig = await startEngineRig(endpoint, {
    prefix: `tput-c${concurrency}`,
    latencyMs,
    connections: concurrency,
  });
  try {
    const runId = `${process.pid}-${concurrency}-${Date.now()}`;
    await forEachConcurrently(payouts, 16, (i) =>
      rig.engine.create(createCommand(bankTransfer(), `tput-${runId}-${i}`)),
    );
    const writeLatency = trackTransactLatency(rig.meter);
    const before = rig.meter.snapshot();
    const callsBefore = rig.providerCalls();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    let submitted = 0;
    let skipped = 0;
    let sweeps = 0;
    const outcomes: Record<string, number> = {};
    while (submitted < payouts && sweeps < MAX_SWEEPS) {
      const report = await rig.engine.sweep({ limit: payouts, concurrency });
      sweeps++;
      submitted += report.submitted;
      skipped += report.skipped;
      for (const [kind, count] of Object.entries(report.outcomes))
        outcomes[kind] = (outcomes[kind] ?? 0) + count;
      if (report.submitted === 0 && !report.leftOver) break;
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const used = CapacityMeter.diff(before, rig.meter.snapshot());
    const achieved = submitted / seconds;
    const limit = latencyMs > 0 ? (concurrency / latencyMs) * 1000 : Number.POSITIVE_INFINITY;
    return {
      C: concurrency,
      'L ms': latencyMs,
      N: payouts,
      sweeps,
      succeeded: outcomes.succeeded ?? 0,
      skipped,
      'provider calls': rig.providerCalls() - callsBefore,
      seconds: fixed(seconds, 1),
      'achieved/s': fixed(achieved, 1),
      'limit/s': latencyMs > 0 ? fixed(limit, 1) : 'none (ceiling)',
      ratio: latencyMs > 0 ? fixed(achieved / limit, 3) : 'n/a',
      'ms/payout/worker': fixed((concurrency / achieved) * 1000, 1),
      'ddb ms/write': fixed(writeLatency.meanMs(), 1),
      'node cpu %': fixed(((cpu.user + cpu.system) / 1000 / (seconds * 1000)) * 100, 0),
      'ddb round trips': used.roundTrips,
    };
  } finally {
    await rig.close();
  }
}

/** Mean wall time of TransactWriteItems calls from here on, measured around the meter's counting. */
function trackTransactLatency(meter: CapacityMeter): { meanMs(): number } {
  const startedAt = meter.snapshot().transactCallMs;
  const countAt = meter.snapshot().byCommand.TransactWriteItemsCommand ?? 0;
  return {
    meanMs() {
      const now = meter.snapshot();
      const calls = (now.byCommand.TransactWriteItemsCommand ?? 0) - countAt;
      return calls === 0 ? 0 : (now.transactCallMs - startedAt) / calls;
    },
  };
}
