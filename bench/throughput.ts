import { performance } from 'node:perf_hooks';
import { payoutSweeper } from '../lib/payouts/payout-sweeper.js';
import type { CapacityMeter } from './capacity-meter.js';
import {
  type BenchResult,
  bankTransfer,
  createCommand,
  fixed,
  forEachConcurrently,
  quick,
  type Row,
  startEngineRig,
  withFreshDynamoDb,
} from './support.js';

export interface ThroughputCase {
  /** Provider calls in flight at once (the sweep's `concurrency`). */
  readonly concurrency: number;
  /** The sandbox's fixed latency per provider response. */
  readonly latencyMs: number;
  /** Due payouts swept. */
  readonly payouts: number;
}

/**
 * N is in the thousands and sized so each timed sweep runs ~20-25 s (125 payouts per worker at C=8, ~94 at
 * C=32): the first claims and the end-of-run tail then cost ~1 %, and the default run stays within a few minutes.
 */
export const defaultThroughputCases: readonly ThroughputCase[] = quick
  ? [
      { concurrency: 8, latencyMs: 200, payouts: 80 },
      { concurrency: 16, latencyMs: 200, payouts: 160 },
    ]
  : [
      { concurrency: 8, latencyMs: 200, payouts: 1000 },
      { concurrency: 16, latencyMs: 200, payouts: 2000 },
      { concurrency: 32, latencyMs: 200, payouts: 3000 },
      // The ceiling of engine + DynamoDB Local on this machine: no provider latency at all.
      { concurrency: 16, latencyMs: 0, payouts: 2000 },
    ];

/** Bounds the sweeps per case: a sweep takes at most one Query page of due work. */
const MAX_SWEEPS = 200;

/**
 * Throughput against the limit C/L: N pending payouts are created (not timed), then sweeps with concurrency C
 * run until all are sent, against a sandbox (in its own process) that answers every provider call after L ms.
 * Every case gets its own fresh DynamoDB Local.
 */
export async function benchThroughput(
  cases: readonly ThroughputCase[] = defaultThroughputCases,
): Promise<BenchResult> {
  const rows: Row[] = [];
  for (const testCase of cases) {
    process.stderr.write(
      `  throughput C=${testCase.concurrency} L=${testCase.latencyMs} N=${testCase.payouts}\n`,
    );
    rows.push(await withFreshDynamoDb((endpoint) => runCase(endpoint, testCase)));
  }
  return {
    name: 'throughput',
    title: 'Throughput of the due-payout sweeper vs the limit C/L (engine only)',
    rows,
    notes: [
      'Each case runs against its own fresh DynamoDB Local; N pending payouts are created first (not timed), then one sweep with concurrency C pays them all (paid and provider calls must both equal N).',
      'C/L: C provider calls in flight, each answered after L ms; ratio to C/L = achieved / (C/L) (target >= 0.9).',
      "The provider is the sandbox in a `node` process of its own, as a real provider is on another machine: in the engine's process its request handling and latency timers would share one event loop with the engine's DynamoDB work and its answers would come late.",
      "Each payout is claimed (the payout carrying the claim's audit event and the wallet's daily-cap counter in one transaction, then a consistent read of the pause), sent, and its outcome recorded (the payout with its outcome's event: one PutItem when it fits under 1 KB; here, created pending, the two events move to an audit item in a transaction). A worker claims its next payout while the provider answers the current one, and records after its next request is on the wire, so its pace is the provider's latency. Claims and records that coincide are group-committed (records only when they are transactions anyway): claims on one wallet's day share one cap update for their sum, so the hot counter item takes one write per batch instead of one per payout.",
      'ddb tx / payout: TransactWriteItems calls per payout in the timed sweep (2.0 without group commit); t_tx in run: their mean client-side latency. Claims are off the critical path as long as t_tx stays well under L.',
      "ms/payout/worker = C / achieved: L of it is the provider; the rest is the engine, the SDK and the sandbox's own handling, the first claim of each worker (not overlapped) and the end-of-run tail.",
      'The L = 0 row is the ceiling of engine + DynamoDB Local on this machine; no sweep can beat it whatever C/L says.',
      'node cpu %: CPU of this one Node process (engine, SDK, sandbox) over the timed wall time; 100 % = one core. DynamoDB Local (Java) shares the same 2 cores.',
    ],
  };
}

async function runCase(endpoint: string, { concurrency, latencyMs, payouts }: ThroughputCase): Promise<Row> {
  const rig = await startEngineRig(endpoint, {
    prefix: `tput-c${concurrency}`,
    latencyMs,
    connections: concurrency,
    sandboxProcess: true,
  });
  try {
    const runId = `${process.pid}-${concurrency}-${Date.now()}`;
    await forEachConcurrently(payouts, 16, (i) =>
      rig.engine.create(createCommand(bankTransfer(), `tput-${runId}-${i}`)),
    );
    const writeLatency = trackTransactLatency(rig.meter);
    const callsBefore = await rig.providerCalls();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    let submitted = 0;
    let skipped = 0;
    let sweeps = 0;
    const outcomes: Record<string, number> = {};
    while (submitted < payouts && sweeps < MAX_SWEEPS) {
      const report = await payoutSweeper(rig.engine).sweep({ limit: payouts, concurrency });
      sweeps++;
      submitted += report.submitted;
      skipped += report.skipped;
      for (const [kind, count] of Object.entries(report.outcomes))
        outcomes[kind] = (outcomes[kind] ?? 0) + count;
      if (report.submitted === 0 && !report.leftOver) break;
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const achieved = submitted / seconds;
    const limit = latencyMs > 0 ? (concurrency / latencyMs) * 1000 : Number.POSITIVE_INFINITY;
    return {
      C: concurrency,
      'L ms': latencyMs,
      N: payouts,
      paid: outcomes.succeeded ?? 0,
      'provider calls': (await rig.providerCalls()) - callsBefore,
      seconds: fixed(seconds, 1),
      'achieved/s': fixed(achieved, 1),
      ...(sweeps > 1 || skipped > 0 ? { 'sweeps / skipped': `${sweeps} / ${skipped}` } : {}),
      'C/L /s': latencyMs > 0 ? fixed(limit, 1) : 'none (ceiling)',
      'ratio to C/L': latencyMs > 0 ? fixed(achieved / limit, 3) : 'n/a',
      'ddb tx / payout': fixed(writeLatency.calls() / Math.max(1, submitted), 2),
      't_tx in run ms': fixed(writeLatency.meanMs(), 1),
      'ms/payout/worker': fixed((concurrency / achieved) * 1000, 1),
      'node cpu %': fixed(((cpu.user + cpu.system) / 1000 / (seconds * 1000)) * 100, 0),
    };
  } finally {
    await rig.close();
  }
}

/** Mean wall time of TransactWriteItems calls from here on, measured around the meter's counting. */
function trackTransactLatency(meter: CapacityMeter): { meanMs(): number; calls(): number } {
  const startedAt = meter.snapshot().transactCallMs;
  const countAt = meter.snapshot().byCommand.TransactWriteItemsCommand ?? 0;
  const calls = () => (meter.snapshot().byCommand.TransactWriteItemsCommand ?? 0) - countAt;
  return {
    calls,
    meanMs() {
      const count = calls();
      return count === 0 ? 0 : (meter.snapshot().transactCallMs - startedAt) / count;
    },
  };
}
