import { Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { DeduplicationScope, FifoThroughputLimit, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { VISIBILITY_TIMEOUT_FACTOR } from '../config/submission.js';
import { deadLetterQueue } from './dead-letter-queue.js';
import type { PayoutFunction } from './payout-function.js';

export { VISIBILITY_TIMEOUT_FACTOR };

export interface SubmissionQueueProps {
  /** The consumer's (`submit-payouts`) timeout; the visibility timeout is six times it. */
  readonly workerTimeout: Duration;
  /** Deliveries of one message before it moves to the dead-letter queue. */
  readonly maxReceiveCount: number;
}

/**
 * The queue between the sweeper and the submission workers (docs/submission.md): SQS FIFO in high-throughput
 * mode (deduplication and throughput per message group, one group per payout), so a payout enqueued again by
 * the next tick while still waiting is dropped by SQS, and Lambda runs up to min(message groups, maximum
 * concurrency) workers. Redrives to a FIFO dead-letter queue, whose depth alarms.
 */
export class SubmissionQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: SubmissionQueueProps) {
    super(scope, id);
    this.deadLetterQueue = deadLetterQueue(this, 'DeadLetters', { fifo: true });
    this.queue = new Queue(this, 'Queue', {
      fifo: true,
      deduplicationScope: DeduplicationScope.MESSAGE_GROUP,
      fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
      visibilityTimeout: Duration.seconds(props.workerTimeout.toSeconds() * VISIBILITY_TIMEOUT_FACTOR),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
    });
  }

  /** The workers: an SQS event source with partial batch responses and the stage's maximum concurrency. */
  bindConsumer(fn: PayoutFunction, options: { batchSize: number; maxConcurrency: number }): this {
    fn.function.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: options.batchSize,
        maxConcurrency: options.maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    return this;
  }

  /** A sender (the sweeper, the API for correction jobs): SUBMIT_QUEUE_URL and the right to send here, nothing else. */
  bindSender(fn: PayoutFunction): this {
    fn.addEnvironment({ SUBMIT_QUEUE_URL: this.queue.queueUrl });
    this.queue.grantSendMessages(fn.function);
    return this;
  }
}
