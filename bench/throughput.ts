import { performance } from 'node:perf_hooks';
import {
  DynamoDBDocumentClient,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { CapacityMeter } from './capacity-meter.js';
import {
  type BenchResult,
  bankTransfer,
  createCommand,
  type EngineRig,
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
 * N is sized so each timed sweep runs ~10-15 s (60 payouts per worker at C=8, 30 at C=32): long enough that the
 * end-of-run tail costs ~1-2 %, short enough that the default run stays under 5 minutes on 2 cores.
 */
export const defaultThroughputCases: readonly ThroughputCase[] = quick
  ? [
      { concurrency: 8, latencyMs: 200, payouts: 80 },
      { concurrency: 16, latencyMs: 200, payouts: 160 },
    ]
  : [
      { concurrency: 8, latencyMs: 200, payouts: 480 },
      { concurrency: 16, latencyMs: 200, payouts: 720 },
      { concurrency: 32, latencyMs: 200, payouts: 960 },
      // The ceiling of engine + DynamoDB Local on this machine: no provider latency at all.
      { concurrency: 16, latencyMs: 0, payouts: 480 },
    ];

/** Bounds the sweeps per case: a sweep takes at most one Query page of due work. */
const MAX_SWEEPS = 200;
/** Transactions per probe worker: half claim-shaped, half record-shaped; the warm-up ones are not kept. */
const PROBE_TRANSACTIONS = quick ? 10 : 30;
const PROBE_WARM_UP = 6;

/**
 * Throughput against the limit C/L: N pending payouts are created (not timed), DynamoDB Local's own
 * transaction latency at concurrency C is probed, then sweeps with concurrency C run until all are sent,
 * against a sandbox that answers every provider call after L ms. Every case gets its own fresh DynamoDB Local.
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
    title: 'Throughput of the due-payout sweeper vs C/L and vs what DynamoDB Local allows',
    rows,
    notes: [
      'Each case runs against its own fresh DynamoDB Local; N pending payouts are created first (not timed), then one sweep with concurrency C pays them all (paid and provider calls must both equal N).',
      'C/L: C provider calls in flight, each answered after L ms; ratio to C/L = achieved / (C/L) (target >= 0.9).',
      'Each payout is claim (TransactWriteItems, 4 items: payout, audit, pause check, shared daily-cap counter) -> provider call -> record (TransactWriteItems, 2 items). The sweep records in the background while the worker claims its next payout, so a worker needs at least L + t_tx per payout: local bound = C / (L + t_tx). With the record on the critical path too (as in engine.submit, and in the sweep before it recorded in the background) the bound would be C / (L + 2 t_tx); that ratio is shown as well and exceeds 1 when the overlap pays off.',
      't_tx probe: mean client-side latency of TransactWriteItems measured just before timing, with C workers doing nothing but claim-shaped and record-shaped transactions, alternately, on the same table (one shared hot counter item, as the daily cap); it is what DynamoDB Local gives at that concurrency. The sweep keeps only part of its workers in DynamoDB at once, so this is a pessimistic t_tx and the local bound a conservative one.',
      'ddb tx/s probe: transactions per second DynamoDB Local completed during that probe; the sweep needs 2 per payout, so "tx/s for C/L" = 2 C / L. When it is above the probe figure, DynamoDB Local (not the engine) is what stops the sweep from reaching C/L on this machine.',
      't_tx in run: the mean over the claim and record transactions of the timed sweep itself.',
      'ms/payout/worker = C / achieved: L of it is the provider, about t_tx the claim, the rest the engine, SDK and sandbox in this one Node process and the end-of-run tail (the last workers finishing, ~1 %).',
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
    const probe = await probeTransactionLatency(rig, concurrency);
    const writeLatency = trackTransactLatency(rig.meter);
    const callsBefore = await rig.providerCalls();
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
    const achieved = submitted / seconds;
    const limit = latencyMs > 0 ? (concurrency / latencyMs) * 1000 : Number.POSITIVE_INFINITY;
    const localBound = (concurrency / (latencyMs + probe.meanMs)) * 1000;
    const sequentialBound = (concurrency / (latencyMs + 2 * probe.meanMs)) * 1000;
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
      't_tx probe ms': fixed(probe.meanMs, 1),
      'local bound /s': fixed(localBound, 1),
      'ratio to local bound': fixed(achieved / localBound, 3),
      'ratio to C/(L+2 t_tx)': fixed(achieved / sequentialBound, 3),
      'ddb tx/s probe': fixed(probe.perSecond, 0),
      'tx/s for C/L': latencyMs > 0 ? fixed(2 * limit, 0) : 'n/a',
      't_tx in run ms': fixed(writeLatency.meanMs(), 1),
      'ms/payout/worker': fixed((concurrency / achieved) * 1000, 1),
      'node cpu %': fixed(((cpu.user + cpu.system) / 1000 / (seconds * 1000)) * 100, 0),
    };
  } finally {
    await rig.close();
  }
}

/**
 * DynamoDB Local's own TransactWriteItems latency at `concurrency`, in the shape of the sweep's transactions and
 * on the same table, with no provider in between: each worker alternates a claim-shaped transaction (conditional
 * Put of its own ~1 KB item carrying the three GSI keys, Put of an audit-like item, ConditionCheck on a shared
 * controls-like item, conditional ADD on one shared counter, as the daily cap) and a record-shaped one (the two
 * Puts). Probe items live under their own partition keys and work-queue partition, so the sweep never sees them.
 */
async function probeTransactionLatency(
  rig: EngineRig,
  concurrency: number,
): Promise<{ meanMs: number; perSecond: number }> {
  const doc = DynamoDBDocumentClient.from(rig.dynamoDb);
  const TableName = rig.tableName;
  const padding = 'x'.repeat(900);
  const transact = async (worker: number, version: number) => {
    const pk = `BENCHPROBE#${worker}`;
    const items: NonNullable<TransactWriteCommandInput['TransactItems']> = [
      {
        Put: {
          TableName,
          Item: {
            pk,
            sk: 'PAYOUT',
            version: version + 1,
            padding,
            gsi1pk: 'BENCHPROBE#STATUS',
            gsi1sk: `${worker}#${version}`,
            gsi2pk: 'BENCHPROBE#MONTH',
            gsi2sk: `${worker}#${version}`,
            gsi3pk: 'WORK#benchprobe',
            gsi3sk: `${worker}#${version}`,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR version = :version',
          ExpressionAttributeValues: { ':version': version },
        },
      },
      {
        Put: {
          TableName,
          Item: { pk, sk: `AUDIT#${String(version).padStart(6, '0')}`, detail: padding.slice(0, 300) },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ];
    if (version % 2 === 0) {
      items.push(
        {
          ConditionCheck: {
            TableName,
            Key: { pk: 'BENCHPROBE#CONTROL', sk: 'GLOBAL' },
            ConditionExpression: 'attribute_not_exists(pk) OR paused = :false',
            ExpressionAttributeValues: { ':false': false },
          },
        },
        {
          Update: {
            TableName,
            Key: { pk: 'BENCHPROBE#CAP', sk: 'CAP' },
            UpdateExpression: 'ADD totalKobo :delta',
            ConditionExpression: 'attribute_not_exists(totalKobo) OR totalKobo <= :headroom',
            ExpressionAttributeValues: { ':delta': 1, ':headroom': Number.MAX_SAFE_INTEGER - 1 },
          },
        },
      );
    }
    const started = performance.now();
    await doc.send(new TransactWriteCommand({ TransactItems: items }));
    return performance.now() - started;
  };
  // A fresh JVM: let it compile the hot paths before anything is kept.
  await forEachConcurrently(concurrency, concurrency, async (worker) => {
    for (let version = 0; version < PROBE_WARM_UP; version++) await transact(worker, version);
  });
  const samples: number[] = [];
  const started = performance.now();
  await forEachConcurrently(concurrency, concurrency, async (worker) => {
    for (let version = PROBE_WARM_UP; version < PROBE_WARM_UP + PROBE_TRANSACTIONS; version++)
      samples.push(await transact(worker, version));
  });
  const seconds = (performance.now() - started) / 1000;
  return {
    meanMs: samples.reduce((sum, value) => sum + value, 0) / samples.length,
    perSecond: samples.length / seconds,
  };
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
