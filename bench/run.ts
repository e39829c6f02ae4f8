/**
 * `npm run bench`: every benchmark against one DynamoDB Local and sandboxes on loopback; prints a Markdown
 * table per benchmark and writes `bench/results/latest.json`.
 *
 * Options: `BENCH_QUICK=1` (smaller N, a smoke run), `BENCH_ONLY=throughput,cold-start` (a subset),
 * `BENCH_OUT=path.json` (where the JSON goes; the default is the committed `bench/results/latest.json`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchColdStart } from './cold-start.js';
import { benchCostPerPayout } from './cost-per-payout.js';
import { benchEngineOverhead } from './engine-overhead.js';
import { type BenchResult, fixed, formatTable, projectRoot, quick, startBenchDynamoDb } from './support.js';
import { benchSweepScaling } from './sweep-scaling.js';
import { benchThroughput } from './throughput.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const benchmarks: Record<string, (endpoint: string) => Promise<BenchResult>> = {
  throughput: (endpoint) => benchThroughput(endpoint),
  'cost-per-payout': benchCostPerPayout,
  'sweep-scaling': benchSweepScaling,
  'cold-start': benchColdStart,
  'engine-overhead': benchEngineOverhead,
};

const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
const selected = Object.keys(benchmarks).filter((name) => !only || only.includes(name));
const out = process.env.BENCH_OUT ?? join(projectRoot, 'bench', 'results', 'latest.json');

const ddb = await startBenchDynamoDb();
const stop = () => {
  ddb.stop().finally(() => process.exit(130));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

const started = performance.now();
const results: (BenchResult & { seconds: number })[] = [];
try {
  for (const name of selected) {
    const run = benchmarks[name];
    if (!run) continue;
    const t0 = performance.now();
    process.stderr.write(`running ${name}...\n`);
    const result = await run(ddb.endpoint);
    const seconds = fixed((performance.now() - t0) / 1000, 1);
    results.push({ ...result, seconds });
    console.log(`${formatTable(result)}\n`);
  }
} finally {
  await ddb.stop();
}

const report = {
  generatedAt: new Date().toISOString(),
  quick,
  machine: {
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    loadAverageAtEnd: loadavg().map((value) => fixed(value, 2)),
  },
  totalSeconds: fixed((performance.now() - started) / 1000, 1),
  results,
};
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(
  `${results.length} benchmarks in ${report.totalSeconds} s (load average ${report.machine.loadAverageAtEnd.join(', ')}); JSON: ${out}`,
);
