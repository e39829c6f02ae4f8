import type * as z from '../../shared/zod.js';
import {
  ENTRIES_PER_BATCH,
  SendMessageBatchAnswerSchema,
  SqsSubmissionQueue,
} from './sqs-submission-queue.js';

/**
 * The queue a worker's batch was delivered from, which also hands messages back: a file of its own, so only the
 * workers carry `changeVisibility` (the sweeper and the API send and never hand back).
 */
export class SqsDeliveringQueue extends SqsSubmissionQueue {
  /**
   * Hands messages back for a prompt redelivery: each received message (by its receipt handle) becomes visible
   * again after its own number of seconds, instead of at the end of the 24-minute visibility timeout
   * (`ChangeMessageVisibilityBatch`, 10 per call; sqs:ChangeMessageVisibility, which CDK grants an SQS event
   * source's function). Resolves with how many SQS did not change (a handle received again meanwhile, an error):
   * those keep the timeout, as before. Not observed for the IAM proof, like `send`'s call from the API.
   */
  async changeVisibility(
    entries: readonly { readonly receiptHandle: string; readonly visibilitySeconds: number }[],
  ): Promise<number> {
    let unchanged = 0;
    for (let start = 0; start < entries.length; start += ENTRIES_PER_BATCH) {
      const batch = entries.slice(start, start + ENTRIES_PER_BATCH);
      const { status, text } = await this.post('ChangeMessageVisibilityBatch', {
        QueueUrl: this.options.queueUrl,
        Entries: batch.map((entry, index) => ({
          Id: String(index),
          ReceiptHandle: entry.receiptHandle,
          VisibilityTimeout: entry.visibilitySeconds,
        })),
      });
      const answer = status >= 200 && status <= 299 ? batchAnswerOf(text) : undefined;
      unchanged += answer ? (answer.Failed ?? []).length : batch.length;
    }
    return unchanged;
  }
}

/** A batch action's answer (`Successful`, `Failed`), or undefined when it is not one. */
function batchAnswerOf(text: string): z.infer<typeof SendMessageBatchAnswerSchema> | undefined {
  try {
    const parsed = SendMessageBatchAnswerSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
