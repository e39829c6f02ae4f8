import { performance } from 'node:perf_hooks';
import { createApiHandler } from '../lib/api/index.js';
import { apiContextFrom } from '../lib/api/services-from-runtime.js';
import { ensureTable } from '../lib/local/create-table.js';
import { stageConfigOf, startLocalSubmissionWorkers } from '../lib/local/submission-workers.js';
import { createRuntime } from '../lib/runtime/runtime.js';
import { startSandbox } from '../lib/sandbox/index.js';
import { silentLogger } from '../lib/shared/logger.js';
import { type BenchResult, fixed, median, quick } from './support.js';

const ROWS = 500;
const LATENCY_MS = 500;
const RUNS = quick ? 3 : 9;
/** Accepts made and thrown away first: DynamoDB Local's JIT warms up (DynamoDB in AWS is never cold). */
const WARM_UP = quick ? 2 : 5;

/**
 * How long `POST /bulk-payout-items/corrections` takes to accept a 500-row CSV as a job, with the provider
 * answering after 500 ms (the request makes no provider call, so the latency must not show): the real router
 * over the real runtime, DynamoDB Local and the submission queue's local stand-in reached through the SQS client.
 * The workers are held back, so only the accept is timed.
 */
export async function benchCorrectionJobs(endpoint: string): Promise<BenchResult> {
  const sandbox = await startSandbox({ latencyMs: LATENCY_MS });
  const workers = await startLocalSubmissionWorkers({
    config: stageConfigOf('dev'),
    // Never loaded: the workers are held back (maxConcurrency 0), only the accept is timed.
    loadWorker: () => Promise.reject(new Error('no worker in this benchmark')),
    logger: silentLogger,
    pollIntervalMs: 3_600_000,
    overrides: { consumer: async () => ({ batchItemFailures: [] }), maxConcurrency: 0 },
  });
  const tableName = `bench-jobs-${Date.now()}`;
  const runtime = createRuntime(
    {
      TABLE_NAME: tableName,
      DYNAMODB_ENDPOINT: endpoint,
      PROVIDER_BASE_URL: sandbox.url,
      PROVIDER_TOKEN: sandbox.token,
      PROVIDER_PIN: sandbox.pin,
      ...workers.environment,
    },
    { logger: silentLogger },
  );
  try {
    await ensureTable(runtime.dynamoDb, tableName);
    const api = createApiHandler(apiContextFrom(runtime));
    const ids = sandbox.fixtures().bulkPayoutItems.map((item) => item.id);
    const csv = `bulkPayoutItemId,narration\n${Array.from({ length: ROWS }, (_, row) => `${ids[row % ids.length]},June salaries ${row}`).join('\n')}\n`;
    const accept = async () => {
      const started = performance.now();
      const answer = await api({
        version: '2.0',
        routeKey: '$default',
        rawPath: '/bulk-payout-items/corrections',
        rawQueryString: '',
        headers: { 'content-type': 'text/csv', 'x-ops-principal': 'bench' },
        requestContext: { http: { method: 'POST', path: '/bulk-payout-items/corrections' } },
        body: csv,
        isBase64Encoded: false,
      } as unknown as Parameters<typeof api>[0]);
      if (answer.statusCode !== 202) throw new Error(`accept answered ${answer.statusCode}: ${answer.body}`);
      return performance.now() - started;
    };
    for (let run = 0; run < WARM_UP; run++) await accept();
    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) times.push(await accept());
    const patches = sandbox.stats().requests['/payout/bulk/item'] ?? 0;
    return {
      name: 'correction-jobs',
      title: `Accepting a ${ROWS}-row correction CSV as a job (provider latency ${LATENCY_MS} ms)`,
      rows: [
        {
          rows: ROWS,
          runs: RUNS,
          'median ms': fixed(median(times), 0),
          'max ms': fixed(Math.max(...times), 0),
          'provider calls': patches,
        },
      ],
      notes: [
        'The accept validates every row, writes 20 BatchWriteItem calls (4 at a time) and the job item, and sends one SQS message per bulk payout item; the workers are held back.',
        'Target: under 2,000 ms (issue 15); API Gateway allows 30 s.',
      ],
    };
  } finally {
    await workers.stop();
    await runtime.close();
    await sandbox.close();
  }
}
