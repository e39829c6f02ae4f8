import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createApiHandler } from '../../lib/api/index.js';
import { apiContextFrom } from '../../lib/api/services-from-runtime.js';
import { runQueueBatch } from '../../lib/jobs/queue-batch.js';
import { runSubmissionBatch } from '../../lib/jobs/submission-batch.js';
import {
  type LocalSubmissionWorkers,
  stageConfigOf,
  startLocalSubmissionWorkers,
} from '../../lib/local/submission-workers.js';
import { payoutEngineOf } from '../../lib/runtime/engines.js';
import { createRuntime, type Runtime } from '../../lib/runtime/runtime.js';
import { correctionJobsOf } from '../../lib/runtime/services.js';
import { type Sandbox, startSandbox } from '../../lib/sandbox/index.js';
import { silentLogger } from '../../lib/shared/logger.js';
import { createTestTable } from '../support/dynamodb.js';

export const PATCH_PATH = '/payout/bulk/item';
export type Worker = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/**
 * Correction jobs on the shipped composition: the API stores the job and enqueues through the SQS client to the
 * queue's local stand-in (the dev stage's batch size, concurrency and visibility timeout), which invokes the
 * worker's batch function; DynamoDB Local and the sandbox over HTTP. The queue's clock is injected, so a
 * redelivery after the visibility timeout is a step of the test, not a wait.
 */
export interface JobsHarness {
  readonly api: ReturnType<typeof createApiHandler>;
  readonly runtime: Runtime;
  readonly sandbox: Sandbox;
  readonly workers: LocalSubmissionWorkers;
  readonly clock: { now: number };
  /** DynamoDB calls the API's runtime made, by command name. */
  readonly calls: string[];
  /** The worker each invocation runs; a test may swap it for one that dies. */
  worker: Worker;
  /** The worker as deployed: the real batch function over its own runtime. */
  readonly healthyWorker: Worker;
  /** Runs deliveries until nothing is visible or in flight, moving the clock past visibility timeouts. */
  drain(): Promise<void>;
  close(): Promise<void>;
}

/** `env` adds to (or overrides) the runtimes' environment: the engine's limits (`DAILY_CAP_KOBO`, …). */
export async function startJobsHarness(
  latencyMs: number,
  env: Readonly<Record<string, string>> = {},
): Promise<JobsHarness> {
  const table = await createTestTable('jobs');
  const sandbox = await startSandbox({ latencyMs });
  const clock = { now: Date.now() };
  const calls: string[] = [];
  const config = stageConfigOf('dev');
  let harness: JobsHarness | undefined;
  const workers = await startLocalSubmissionWorkers({
    config,
    // Never loaded: every delivery goes to the harness's worker (`consumer` below).
    loadWorker: () => Promise.reject(new Error('the harness delivers to its own worker')),
    logger: silentLogger,
    pollIntervalMs: 3_600_000,
    overrides: {
      now: () => clock.now,
      // An invocation ends when its worker does: the function timeout is not what these tests exercise.
      timeout: (_ms, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve())),
      consumer: (event, context) => (harness as JobsHarness).worker(event, context),
    },
  });
  const environment = {
    ...env,
    TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: table.endpoint,
    PROVIDER_BASE_URL: sandbox.url,
    PROVIDER_TOKEN: sandbox.token,
    PROVIDER_PIN: sandbox.pin,
    ...workers.environment,
  };
  const runtime = createRuntime(environment, {
    logger: silentLogger,
    awsCalls: { functionName: 'api', observer: (awsCall) => void calls.push(awsCall.command) },
  });
  const workerRuntime = createRuntime(environment, { logger: silentLogger });
  const workerJobs = correctionJobsOf(workerRuntime);
  const healthy: Worker = async (event, context) =>
    (
      await runQueueBatch(
        {
          submit: (payouts) =>
            runSubmissionBatch(
              payoutEngineOf(workerRuntime),
              payouts,
              context.getRemainingTimeInMillis(),
              silentLogger,
            ),
          jobs: workerJobs,
        },
        event,
        context.getRemainingTimeInMillis(),
        silentLogger,
      )
    ).response;
  const visibilityMs = workers.queue.options.visibilityTimeoutMs;
  harness = {
    api: createApiHandler(apiContextFrom(runtime)),
    runtime,
    sandbox,
    workers,
    clock,
    calls,
    worker: healthy,
    healthyWorker: healthy,
    async drain() {
      for (let round = 0; round < 20; round++) {
        workers.queue.pump();
        await workers.queue.idle();
        const stats = workers.queue.stats();
        if (stats.visible === 0 && stats.inFlight === 0) return;
        clock.now += visibilityMs + 1;
      }
      throw new Error('the queue did not drain');
    },
    async close() {
      await workers.stop();
      await runtime.close();
      await workerRuntime.close();
      await sandbox.close();
      table.client.destroy();
    },
  };
  return harness;
}
