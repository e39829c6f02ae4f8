import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { parseStageConfig, type StageConfig } from '../../infra/config/stage-config.js';
import {
  SUBMISSION_QUEUE_NAME,
  SUBMIT_WORKER_TIMEOUT_SECONDS,
  VISIBILITY_TIMEOUT_FACTOR,
} from '../../infra/config/submission.js';
import { submissionEnvironment } from '../../infra/config/submission-sizing.js';
import type { Logger } from '../shared/logger.js';
import { servedBy } from './function-attribution.js';
import { type LocalQueueOptions, LocalSqsQueue } from './local-sqs-queue.js';
import { type LocalSqsEndpoint, serveLocalSqs } from './sqs-endpoint.js';

const PROJECT_ROOT = join(import.meta.dirname, '..', '..');

/** A stage's configuration as cdk.json gives it to the stack. */
export function stageConfigOf(stage: string): StageConfig {
  const cdkJson: { context: { stages: Record<string, unknown> } } = JSON.parse(
    readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8'),
  );
  return parseStageConfig(stage, cdkJson.context.stages[stage]);
}

/** The queue and event-source settings the stack deploys for this stage, for the local stand-in. */
export function submissionQueueSettings(
  config: StageConfig,
): Pick<
  LocalQueueOptions,
  | 'name'
  | 'fifo'
  | 'visibilityTimeoutMs'
  | 'maxReceiveCount'
  | 'batchSize'
  | 'maxConcurrency'
  | 'functionTimeoutMs'
> {
  return {
    name: SUBMISSION_QUEUE_NAME,
    fifo: true,
    visibilityTimeoutMs: SUBMIT_WORKER_TIMEOUT_SECONDS * VISIBILITY_TIMEOUT_FACTOR * 1000,
    maxReceiveCount: config.submission.maxReceiveCount,
    batchSize: config.submission.batchSize,
    maxConcurrency: config.submission.maxConcurrency,
    functionTimeoutMs: SUBMIT_WORKER_TIMEOUT_SECONDS * 1000,
  };
}

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export interface LocalSubmissionWorkers {
  readonly queue: LocalSqsQueue;
  readonly endpoint: LocalSqsEndpoint;
  /**
   * The environment that points the runtime's `SqsSubmissionQueue` at the stand-in, with the stage's
   * submission settings (per-tick maximum, provider rate limit) as the stack gives them to the functions.
   */
  readonly environment: { SUBMIT_QUEUE_URL: string; SQS_ENDPOINT: string } & Record<string, string>;
  stop(): Promise<void>;
}

/**
 * The submission queue as `npm start` and the benchmark run it: the local SQS stand-in with the stage's
 * settings, answering SendMessageBatch on 127.0.0.1, delivering to the real `functions/submit-payouts.ts`
 * handler (which builds its runtime from `process.env`, as in Lambda), re-polled every `pollIntervalMs` so a
 * message whose visibility timeout ended is delivered again.
 *
 * @example
 * const workers = await startLocalSubmissionWorkers({ config: stageConfigOf('dev'), logger });
 * Object.assign(process.env, workers.environment);
 */
export async function startLocalSubmissionWorkers(options: {
  config: StageConfig;
  /**
   * Loads the worker on first delivery, as Lambda loads it: the deployed `functions/submit-payouts.ts` handler,
   * imported by the caller (scripts/, bench/, test/), since nothing in lib/ imports functions/.
   */
  loadWorker: () => Promise<SqsHandler>;
  logger: Logger;
  port?: number;
  pollIntervalMs?: number;
  overrides?: Partial<LocalQueueOptions>;
}): Promise<LocalSubmissionWorkers> {
  let worker: Promise<SqsHandler> | undefined;
  const consumer =
    options.overrides?.consumer ??
    (async (event: SQSEvent, context: Context) => {
      worker ??= options.loadWorker();
      return (await worker)(event, context);
    });
  const queue = new LocalSqsQueue({
    ...submissionQueueSettings(options.config),
    logger: options.logger,
    ...options.overrides,
    // Each delivery runs as the function SQS invokes in AWS, so its AWS calls are told apart (the IAM proof).
    consumer: (event, context) => servedBy('submit-payouts', () => consumer(event, context)),
  });
  const endpoint = await serveLocalSqs(queue, { port: options.port ?? 0, logger: options.logger });
  queue.start(options.pollIntervalMs ?? 1000);
  return {
    queue,
    endpoint,
    environment: {
      ...submissionEnvironment(options.config),
      SUBMIT_QUEUE_URL: endpoint.queueUrl,
      SQS_ENDPOINT: endpoint.url,
    },
    async stop() {
      await endpoint.close();
      await queue.stop();
    },
  };
}
