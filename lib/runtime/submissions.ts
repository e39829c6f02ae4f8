import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { queueOfArn, regionOfQueueUrl, SqsDeliveringQueue, SqsSubmissionQueue } from '../payouts/index.js';
import { localAwsConfig } from '../shared/local-aws-config.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

/**
 * The submission queue (SQS), built on first use: where the sweeper hands due payouts to the workers and the
 * API hands correction-job work to the same workers. Undefined without SUBMIT_QUEUE_URL: the sweeper then
 * submits payouts itself.
 */
export function submissionsOf(runtime: Runtime): SqsSubmissionQueue | undefined {
  return once(runtime, 'submissions', () => {
    const { env, mode, overrides } = runtime;
    if (!env.SUBMIT_QUEUE_URL) return undefined;
    return new SqsSubmissionQueue({
      queueUrl: env.SUBMIT_QUEUE_URL,
      region: env.AWS_REGION ?? regionOfQueueUrl(env.SUBMIT_QUEUE_URL) ?? localAwsConfig.region,
      // In Lambda the function role's credentials (the environment); locally the stand-in checks none.
      credentials: mode === 'aws' ? defaultProvider() : localAwsConfig.credentials,
      ...(env.SQS_ENDPOINT && { endpoint: env.SQS_ENDPOINT }),
      ...(overrides.awsCalls && { observe: overrides.awsCalls }),
    });
  });
}

/**
 * The queue a batch was delivered from, addressed for ChangeMessageVisibility (`handBackPromptly`): the URL
 * follows from the event source's ARN (`arn:aws:sqs:<region>:<account>:<name>`), on SQS_ENDPOINT when set (the
 * local stand-in), so the worker needs no queue URL of its own; its role holds sqs:ChangeMessageVisibility from
 * the event source's grant. Undefined for an ARN that names no SQS queue.
 */
export function deliveringQueueOf(
  runtime: Runtime,
  eventSourceArn: string | undefined,
): SqsDeliveringQueue | undefined {
  const { env, mode } = runtime;
  const queue = queueOfArn(eventSourceArn, env.SQS_ENDPOINT);
  if (!queue) return undefined;
  return once(runtime, `delivering-queue:${queue.queueUrl}`, () => {
    return new SqsDeliveringQueue({
      queueUrl: queue.queueUrl,
      region: env.AWS_REGION ?? (queue.region === 'local' ? localAwsConfig.region : queue.region),
      credentials: mode === 'aws' ? defaultProvider() : localAwsConfig.credentials,
      ...(env.SQS_ENDPOINT && { endpoint: env.SQS_ENDPOINT }),
    });
  });
}
