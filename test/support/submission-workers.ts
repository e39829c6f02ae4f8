import { SUBMIT_WORKER_TIMEOUT_SECONDS } from '../../infra/config/submission.js';
import { runSubmissionBatch } from '../../lib/jobs/submission-batch.js';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import {
  type LocalSubmissionWorkers,
  stageConfigOf,
  startLocalSubmissionWorkers,
} from '../../lib/local/submission-workers.js';
import { SqsSubmissionQueue } from '../../lib/payouts/adapters/sqs-submission-queue.js';
import type { EngineHarness } from './engine-harness.js';

/** The submission workers a test hands payouts to, and what they did. */
export interface HarnessWorkers {
  /** The queue as the functions reach it: the project's SQS client, signed, over HTTP on 127.0.0.1. */
  readonly submissions: SqsSubmissionQueue;
  readonly workers: LocalSubmissionWorkers;
  /** Resolves once every delivery under way has been answered (a send delivers at once). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The submission workers as deployed, in this process: the local SQS stand-in with the dev stage's settings
 * (FIFO, batch size, concurrency, redrive), delivering to the worker's own code (`runSubmissionBatch`, what
 * functions/submit-payouts.ts runs) on the harness's engine and on the `submit-payouts` role.
 *
 * @example
 * const workers = await startHarnessWorkers(h);
 * await service.payOut(id, 'event', actor, undefined, { by: 'queue', queue: workers.submissions });
 * await workers.idle();
 */
export async function startHarnessWorkers(h: EngineHarness): Promise<HarnessWorkers> {
  const workers = await startLocalSubmissionWorkers({
    config: stageConfigOf('dev'),
    logger: h.logger,
    loadWorker: () => Promise.reject(new Error('the harness runs the worker on its own engine')),
    overrides: {
      consumer: async (event) =>
        (await runSubmissionBatch(h.engine, event, SUBMIT_WORKER_TIMEOUT_SECONDS * 1000, h.logger)).response,
    },
  });
  const submissions = new SqsSubmissionQueue({
    queueUrl: workers.endpoint.queueUrl,
    endpoint: workers.endpoint.url,
    region: localAwsConfig.region,
    credentials: localAwsConfig.credentials,
  });
  return {
    submissions,
    workers,
    idle: () => workers.queue.idle(),
    stop: () => workers.stop(),
  };
}
