import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { forEachAtOnce } from '../../shared/at-once.js';
import type { AwsCallObserver } from '../../shared/aws-call-observer.js';
import type { PostAnswer } from '../../shared/http-post.js';
import { SignedAwsPost } from '../../shared/signed-aws-post.js';
import * as z from '../../shared/zod.js';
import {
  deduplicationIdOf,
  messageGroupOf,
  type SubmissionQueue,
  SubmissionQueueError,
  type SubmissionRequest,
} from '../queue/submission-queue.js';

/** SQS takes at most 10 entries per SendMessageBatch. */
export const ENTRIES_PER_BATCH = 10;
/** SendMessageBatch calls in flight at once: a 10,000-payout backlog is 1,000 calls, sent ~16 at a time. */
const BATCHES_IN_FLIGHT = 16;
export const SQS_REQUEST_TIMEOUT_MS = 5_000;

export const SendMessageBatchAnswerSchema = z.lazy(() =>
  z.object({
    Successful: z.optional(z.array(z.object({ Id: z.string() }))),
    Failed: z.optional(
      z.array(
        z.object({ Id: z.string(), Code: z.optional(z.string()), SenderFault: z.optional(z.boolean()) }),
      ),
    ),
  }),
);

/** One message as sent; the ids matter on a FIFO queue only. */
export interface QueueMessage {
  readonly body: string;
  readonly groupId: string;
  readonly deduplicationId: string;
  /** Message attributes (String): the correlation id and the W3C traceparent, which the worker continues. */
  readonly attributes?: Readonly<Record<string, string | undefined>>;
}

export interface SqsSubmissionQueueOptions {
  readonly queueUrl: string;
  readonly region: string;
  readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** Where requests go; the queue URL's origin by default (`https://sqs.<region>.amazonaws.com`). */
  readonly endpoint?: string;
  /**
   * Told of each SendMessageBatch before it is signed, as the SDK clients' observer is (the IAM proof,
   * lib/shared/aws-call-observer.ts): this queue is a signed fetch, not an SDK client. Never set in Lambda.
   */
  readonly observe?: { readonly functionName: string; readonly observer: AwsCallObserver };
}

/**
 * The submission queue on Amazon SQS: `SendMessageBatch` over SQS's JSON protocol, signed with SigV4 by the
 * SDK's own signer and posted over Node's `http`/`https` (`postText`), which the functions load anyway (the
 * project ships no SQS client; this is the one call it makes). On a FIFO queue each
 * eligibility of a payout is its own message group and deduplication id (`deduplicationIdOf`), so the next tick enqueueing
 * a payout still waiting in the queue is dropped by SQS (see docs/submission.md).
 *
 * @example
 * const queue = new SqsSubmissionQueue({ queueUrl, region: 'eu-west-1', credentials: defaultProvider() });
 * await queue.enqueue([{ payoutId, version }]);
 */
export class SqsSubmissionQueue implements SubmissionQueue {
  protected readonly options: SqsSubmissionQueueOptions;
  readonly #sqs: SignedAwsPost;
  readonly #fifo: boolean;

  constructor(options: SqsSubmissionQueueOptions) {
    this.options = options;
    this.#fifo = options.queueUrl.endsWith('.fifo');
    this.#sqs = new SignedAwsPost({
      service: 'sqs',
      region: options.region,
      credentials: options.credentials,
      endpoint: new URL(options.endpoint ?? new URL(options.queueUrl).origin),
      timeoutMs: SQS_REQUEST_TIMEOUT_MS,
    });
  }

  enqueue(requests: readonly SubmissionRequest[]): Promise<void> {
    return this.send(
      requests.map(({ correlationId, traceparent, ...request }) => ({
        body: JSON.stringify(request),
        groupId: messageGroupOf(request),
        deduplicationId: deduplicationIdOf(request),
        attributes: { correlationId, traceparent },
      })),
    );
  }

  /**
   * Sends any messages to the queue (correction jobs share it, lib/bulk-corrections/job-queue.ts); the group and
   * deduplication ids are used on a FIFO queue only.
   */
  async send(messages: readonly QueueMessage[]): Promise<void> {
    const requests = messages;
    const batches: QueueMessage[][] = [];
    for (let start = 0; start < requests.length; start += ENTRIES_PER_BATCH) {
      batches.push(requests.slice(start, start + ENTRIES_PER_BATCH));
    }
    const refused: QueueMessage[] = [];
    await forEachAtOnce(batches, BATCHES_IN_FLIGHT, async (batch) => {
      // Entries SQS refused (throttling, an internal error) are offered once more before the tick fails.
      const first = await this.#sendBatch(batch);
      if (first.length > 0) refused.push(...(await this.#sendBatch(first)));
    });
    if (refused.length > 0) {
      throw new SubmissionQueueError(
        `the submission queue refused ${refused.length} of ${requests.length} messages`,
      );
    }
  }

  /** Sends one SendMessageBatch; resolves with the requests SQS did not accept. */
  async #sendBatch(batch: readonly QueueMessage[]): Promise<QueueMessage[]> {
    const input = {
      QueueUrl: this.options.queueUrl,
      Entries: batch.map((message, index) => ({
        Id: String(index),
        MessageBody: message.body,
        ...(message.attributes && attributesOf(message.attributes)),
        ...(this.#fifo && {
          MessageGroupId: message.groupId,
          MessageDeduplicationId: message.deduplicationId,
        }),
      })),
    };
    const observe = this.options.observe;
    if (observe) {
      await observe.observer({
        functionName: observe.functionName,
        client: 'SQSClient',
        command: 'SendMessageBatchCommand',
        input,
      });
    }
    const { status, text } = await this.post('SendMessageBatch', input);
    if (status < 200 || status > 299) {
      throw new SubmissionQueueError(
        `SendMessageBatch answered ${status} ${errorTypeOf(text)} for ${batch.length} requests`,
      );
    }
    const answer = SendMessageBatchAnswerSchema.safeParse(JSON.parse(text));
    if (!answer.success) throw new SubmissionQueueError('SendMessageBatch answered something unreadable');
    const failedIds = new Set((answer.data.Failed ?? []).map((entry) => entry.Id));
    return batch.filter((_, index) => failedIds.has(String(index)));
  }

  /** One signed call of SQS's JSON protocol. */
  protected post(action: string, input: unknown): Promise<PostAnswer> {
    return this.#sqs.post(
      { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `AmazonSQS.${action}` },
      JSON.stringify(input),
    );
  }
}

/** A message's attributes as SendMessageBatch takes them: String attributes, those set. */
function attributesOf(attributes: Readonly<Record<string, string | undefined>>) {
  return {
    MessageAttributes: Object.fromEntries(
      Object.entries(attributes).flatMap(([name, value]) =>
        value ? [[name, { DataType: 'String', StringValue: value }]] : [],
      ),
    ),
  };
}

/** The error type SQS names (`__type`), never the message text. */
function errorTypeOf(text: string): string {
  try {
    const parsed = z.object({ __type: z.optional(z.string()) }).safeParse(JSON.parse(text));
    return parsed.success ? (parsed.data.__type?.split('#').pop() ?? '') : '';
  } catch {
    return '';
  }
}

/** The region of a queue URL `https://sqs.<region>.amazonaws.com/<account>/<name>`, if it names one. */
export function regionOfQueueUrl(queueUrl: string): string | undefined {
  return /^sqs\.([a-z0-9-]+)\.amazonaws\.com/.exec(new URL(queueUrl).hostname)?.[1];
}

/**
 * The URL of the queue an SQS event source ARN names (`arn:aws:sqs:<region>:<account>:<name>`), on `endpoint`
 * when given (the local stand-in), else SQS's regional endpoint; undefined for an ARN that names no SQS queue.
 *
 * @example queueOfArn('arn:aws:sqs:eu-west-1:123456789012:submissions.fifo')
 * // { region: 'eu-west-1', queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/submissions.fifo' }
 */
export function queueOfArn(
  arn: string | undefined,
  endpoint?: string,
): { readonly region: string; readonly queueUrl: string } | undefined {
  const parts = /^arn:aws[a-z-]*:sqs:([a-z0-9-]+):(\d{12}):([A-Za-z0-9_-]{1,80}(?:\.fifo)?)$/.exec(arn ?? '');
  if (!parts) return undefined;
  const [, region = '', account = '', name = ''] = parts;
  const origin = (endpoint ?? `https://sqs.${region}.amazonaws.com`).replace(/\/+$/, '');
  return { region, queueUrl: `${origin}/${account}/${name}` };
}
