import type { Logger } from '../shared/logger.js';
import { type DomainEvent, domainEventOf, type PayoutStreamRecord } from './domain-events.js';
import type { EventPublisher } from './event-publisher.js';

export interface StreamBatchResult {
  /** Sequence numbers of records to hand back to the stream (Lambda's partial batch response). */
  readonly failedSequenceNumbers: string[];
  readonly published: number;
}

type SequencedRecord = PayoutStreamRecord & { readonly dynamodb?: { readonly SequenceNumber?: string } };

/**
 * Publishes the domain events of a batch of stream records, in order. On a failure the failing record and
 * every later one are reported back, so the stream retries from there and order per payout is kept;
 * consumers drop repeats by `eventId`.
 */
export async function publishStreamBatch(
  records: readonly SequencedRecord[],
  publisher: EventPublisher,
  logger: Logger,
): Promise<StreamBatchResult> {
  let published = 0;
  for (let index = 0; index < records.length; index++) {
    const record = records[index] as SequencedRecord;
    let event: DomainEvent | undefined;
    try {
      event = domainEventOf(record);
      if (event) {
        await publisher.publish([event]);
        published++;
      }
    } catch (error) {
      logger.error('could not publish domain event', {
        sequenceNumber: record.dynamodb?.SequenceNumber,
        eventId: event?.detail.eventId,
        error: error instanceof Error ? error.message : String(error),
      });
      const failedSequenceNumbers = records
        .slice(index)
        .map((r) => r.dynamodb?.SequenceNumber)
        .filter((n): n is string => typeof n === 'string');
      return { failedSequenceNumbers, published };
    }
  }
  return { failedSequenceNumbers: [], published };
}
