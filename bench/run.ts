/**
 * `npm run bench`: every benchmark against its own fresh DynamoDB Local (throughput: one per case) and
 * sandboxes on loopback; prints a Markdown table per benchmark and writes `bench/results/latest.json`.
 *
 * Options: `BENCH_QUICK=1` (smaller N, a smoke run), `BENCH_ONLY=throughput,cold-start` (a subset),
 * `BENCH_OUT=path.json` (where the JSON goes; the default is the committed `bench/results/latest.json`). With
 * BENCH_ONLY, the file's entries of the other benchmarks are kept; each entry says when it was measured.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type FleetSimulationRow, simulateCapFleet } from './cap-fleet-simulation.js';
import { benchColdStart, type ColdStartReport } from './cold-start.js';
import { benchCorrectionJobs } from './correction-jobs.js';
import { benchCostPerPayout, type CostReport } from './cost-per-payout.js';
import { benchEligibleToSent, type EligibleToSentReport } from './eligible-to-sent.js';
import { benchEngineOverhead } from './engine-overhead.js';
import { benchMonthEnd, type MonthEndReport } from './month-end.js';
import { benchPayoutRuns, type PayoutRunsReport } from './payout-runs.js';
import { benchReadPaths } from './read-paths.js';
import { benchShippedPath, type ShippedPathReport } from './shipped-path.js';
import {
  type BenchResult,
  fixed,
  formatTable,
  projectRoot,
  quick,
  stopAllBenchDynamoDb,
  withFreshDynamoDb,
} from './support.js';
import { benchSweepScaling } from './sweep-scaling.js';
import { benchThroughput } from './throughput.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** Each starts and stops its own DynamoDB Local, so none pays for the tables or load another left behind. */
const benchmarks: Record<string, () => Promise<BenchResult>> = {
  // One fresh DynamoDB Local per case (see benchThroughput).
  throughput: () => benchThroughput(),
  'cost-per-payout': async () => {
    const { cost: measured, ...result } = await withFreshDynamoDb(benchCostPerPayout);
    cost = measured;
    return result;
  },
  'read-paths': () => withFreshDynamoDb(benchReadPaths),
  'sweep-scaling': () => withFreshDynamoDb(benchSweepScaling),
  'cold-start': async () => {
    const { coldStart: measured, ...result } = await withFreshDynamoDb(benchColdStart);
    coldStart = measured;
    return result;
  },
  'engine-overhead': () => withFreshDynamoDb(benchEngineOverhead),
  'correction-jobs': () => withFreshDynamoDb(benchCorrectionJobs),
  // SIMULATION: per-item serialisation and conflicts modelled on DynamoDB Local (bench/cap-fleet-simulation.ts).
  'cap-fleet-simulation': async () => {
    const rows = await withFreshDynamoDb((endpoint) => simulateCapFleet(endpoint, quick ? 100 : 300));
    fleetSimulation = rows;
    return {
      name: 'cap-fleet-simulation',
      title: 'SIMULATION: the daily cap counter under a fleet, before (single counter) and after (shards)',
      rows: rows.map((row) => ({ ...row })),
      notes: [
        'A simulation, not DynamoDB: the real store code against DynamoDB Local through SDK middleware that models one item as AWS serves it (a transaction holds its items 10 ms, another touching one meanwhile is cancelled with TransactionConflict; 1,000 WCU/s per item), time dilated k = R / 50 so DynamoDB Local keeps up. 10 stores (containers), each with its own client and group commit, claim 2,000,000 kobo each at exactly R; the cap is 90% of the demand.',
        'ratioOfLimit: the share of the claims, arriving at R, decided in time (taken, or refused by the cap); the rest failed on conflicts after the retries: in AWS the worker hands their messages back, delivered again within 5 to 60 s (lib/jobs/hand-back.ts). SIMULATION: the modelled DynamoDB and the writers\' conflict pauses run `dilation` times slower than real. capOverspentKobo: the shards\' sum above the cap. "single counter" is the shipped store with DAILY_CAP_SHARDS=1 (the default), "sharded counter" the same store with 32.',
      ],
    };
  },
  // Its own DynamoDB Local per run, and the handlers in a process of their own.
  'shipped-path': async () => {
    const { shippedPath: measured, ...result } = await benchShippedPath(previousShippedPath());
    shippedPath = measured;
    return result;
  },
  // Its own DynamoDB Local per run (drain, then release), the coordinator and each container a process.
  'month-end': async () => {
    const { monthEnd: measured, ...result } = await benchMonthEnd();
    monthEnd = measured;
    return result;
  },
  // Its own DynamoDB Local; the API, the coordinator (the sweeper) and each worker container a process.
  'payout-runs': async () => {
    const { payoutRuns: measured, ...result } = await benchPayoutRuns();
    payoutRuns = measured;
    return result;
  },
  // npm start itself (its own DynamoDB Local), the sandbox in a process of its own; the deployed 1-minute tick.
  'eligible-to-sent': async () => {
    const { eligibleToSent: measured, ...result } = await benchEligibleToSent();
    eligibleToSent = measured;
    return result;
  },
};
let eligibleToSent: EligibleToSentReport | undefined;
let monthEnd: MonthEndReport | undefined;
let payoutRuns: PayoutRunsReport | undefined;
let shippedPath: ShippedPathReport | undefined;
/** The file's shippedPath entry, which a run of one half of it (BENCH_SHIPPED) completes. */
const previousShippedPath = (): ShippedPathReport | undefined =>
  existsSync(out)
    ? (JSON.parse(readFileSync(out, 'utf8')) as { shippedPath?: ShippedPathReport }).shippedPath
    : undefined;
let cost: CostReport | undefined;
let fleetSimulation: FleetSimulationRow[] | undefined;
let coldStart: ColdStartReport | undefined;

const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
const selected = Object.keys(benchmarks).filter((name) => !only || only.includes(name));
const out = process.env.BENCH_OUT ?? join(projectRoot, 'bench', 'results', 'latest.json');

const stop = () => {
  stopAllBenchDynamoDb().finally(() => process.exit(130));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

const loadAtStart = loadavg().map((value) => fixed(value, 2));
const started = performance.now();
type ResultEntry = BenchResult & {
  seconds: number;
  /** When this benchmark ran and the 1/5/15-minute load average around it: a BENCH_ONLY run keeps others' entries. */
  measuredAt: string;
  loadAverage: { atStart: number[]; atEnd: number[] };
};
const results: ResultEntry[] = [];
for (const name of selected) {
  const run = benchmarks[name];
  if (!run) continue;
  const t0 = performance.now();
  const before = loadavg().map((value) => fixed(value, 2));
  process.stderr.write(`running ${name}...\n`);
  const result = await run();
  const seconds = fixed((performance.now() - t0) / 1000, 1);
  results.push({
    ...result,
    seconds,
    measuredAt: new Date().toISOString(),
    loadAverage: { atStart: before, atEnd: loadavg().map((value) => fixed(value, 2)) },
  });
  console.log(`${formatTable(result)}\n`);
}

/**
 * A subset run (BENCH_ONLY) into an existing file replaces only its own benchmarks' entries (and their top-level
 * figures), so the file still holds the last measured result of every benchmark, each with its own date and load.
 */
const previous: {
  results?: ResultEntry[];
  cost?: unknown;
  shippedPath?: unknown;
  coldStart?: unknown;
  fleetSimulation?: unknown;
  eligibleToSent?: unknown;
  monthEnd?: unknown;
  payoutRuns?: unknown;
} = only && existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : {};
const kept = (previous.results ?? []).filter((entry) => !results.some((fresh) => fresh.name === entry.name));
const report = {
  generatedAt: new Date().toISOString(),
  quick,
  machine: {
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    loadAverageAtStart: loadAtStart,
    loadAverageAtEnd: loadavg().map((value) => fixed(value, 2)),
  },
  totalSeconds: fixed((performance.now() - started) / 1000, 1),
  ...(previous.cost !== undefined && { cost: previous.cost }),
  ...(previous.shippedPath !== undefined && { shippedPath: previous.shippedPath }),
  ...(previous.coldStart !== undefined && { coldStart: previous.coldStart }),
  ...(previous.fleetSimulation !== undefined && { fleetSimulation: previous.fleetSimulation }),
  ...(previous.eligibleToSent !== undefined && { eligibleToSent: previous.eligibleToSent }),
  ...(previous.monthEnd !== undefined && { monthEnd: previous.monthEnd }),
  ...(previous.payoutRuns !== undefined && { payoutRuns: previous.payoutRuns }),
  ...(cost && { cost }),
  ...(shippedPath && { shippedPath }),
  ...(coldStart && { coldStart }),
  ...(fleetSimulation && { fleetSimulation }),
  ...(eligibleToSent && { eligibleToSent }),
  ...(monthEnd && { monthEnd }),
  ...(payoutRuns && { payoutRuns }),
  results: [...kept, ...results],
};
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(
  `${results.length} benchmarks in ${report.totalSeconds} s (load average ${loadAtStart.join(', ')} at start, ${report.machine.loadAverageAtEnd.join(', ')} at end); JSON: ${out}`,
);
