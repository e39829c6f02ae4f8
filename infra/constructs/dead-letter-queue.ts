import { Duration, Validations } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * A dead-letter queue: encrypted, TLS only, messages kept 14 days (the most SQS allows) so an operator can
 * inspect and redrive them. Every DLQ gets a depth alarm in `Monitoring`.
 */
export function deadLetterQueue(scope: Construct, id: string, options: { fifo?: boolean } = {}): Queue {
  const queue = new Queue(scope, id, {
    // A FIFO queue's dead letters must go to a FIFO queue.
    ...(options.fifo && { fifo: true }),
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  Validations.of(queue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason:
      'This queue is itself a dead-letter queue; a DLQ of a DLQ would only hide failures. Its depth is alarmed.',
  });
  return queue;
}
