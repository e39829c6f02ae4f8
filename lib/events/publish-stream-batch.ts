import type { Logger } from '../shared/logger.js';
import { type PayoutStreamRecord, type PublishedEvent, publishedEventOf } from './domain-events.js';
import type { EventPublisher } from './event-publisher.js';

export interface StreamBatchResult {
  /** Sequence numbers of records to hand back to the stream (Lambda's partial batch response). */
  readonly failedSequenceNumbers: string[];
  readonly published: number;
}

/**
 * One PutEvents (the SDK's own retries included) is abandoned after this long, so a slow EventBridge costs a
 * known time per record (test/infra/handler-limits.test.ts).
 */
export const PUT_EVENTS_DEADLINE_MS = 15_000;

/** No record's PutEvents starts with less than this left before the invocation's deadline. */
export const PUBLISH_STOP_STARTING_BEFORE_DEADLINE_MS = 20_000;

/** When to stop starting records: the invocation's deadline less the stop margin, and the clock to read. */
export interface PublishBudget {
  readonly stopStartingAt: number;
  readonly now?: () => number;
}

/**
 * Bookkeeping a table change calls for before its event is published (a payout run counting its rows' ends,
 * lib/payout-runs/run-ends.ts). It must be idempotent: a record that fails is handed back and comes again.
 */
export interface StreamBookkeeper {
  onRecord(record: PayoutStreamRecord): Promise<void>;
}

type SequencedRecord = PayoutStreamRecord & { readonly dynamodb?: { readonly SequenceNumber?: string } };

/**
 * Publishes the domain events of a batch of stream records, in order. On a failure the failing record and
 * every later one are reported back, so the stream retries from there and order per payout is kept;
 * consumers drop repeats by `eventId`. With a `budget`, a record is not started past `stopStartingAt`: it and
 * the later ones are reported back the same way, and the stream's next invocation starts with them.
 */
export async function publishStreamBatch(
  records: readonly SequencedRecord[],
  publisher: EventPublisher,
  logger: Logger,
  budget?: PublishBudget,
  bookkeeper?: StreamBookkeeper,
): Promise<StreamBatchResult> {
  const now = budget?.now ?? Date.now;
  let published = 0;
  for (let index = 0; index < records.length; index++) {
    const record = records[index] as SequencedRecord;
    if (budget && now() >= budget.stopStartingAt) {
      logger.info('stopped publishing before the deadline; the stream resumes here', {
        sequenceNumber: record.dynamodb?.SequenceNumber,
        left: records.length - index,
      });
      return { failedSequenceNumbers: sequenceNumbersFrom(records, index), published };
    }
    let event: PublishedEvent | undefined;
    try {
      await bookkeeper?.onRecord(record);
      event = publishedEventOf(record);
      if (event) {
        await publisher.publish([event], { signal: AbortSignal.timeout(PUT_EVENTS_DEADLINE_MS) });
        published++;
      }
    } catch (error) {
      logger.error('could not handle the stream record (bookkeeping or its domain event)', {
        sequenceNumber: record.dynamodb?.SequenceNumber,
        eventId: event?.detail.eventId,
        error: error instanceof Error ? error.message : String(error),
      });
      return { failedSequenceNumbers: sequenceNumbersFrom(records, index), published };
    }
  }
  return { failedSequenceNumbers: [], published };
}

function sequenceNumbersFrom(records: readonly SequencedRecord[], index: number): string[] {
  return records
    .slice(index)
    .map((r) => r.dynamodb?.SequenceNumber)
    .filter((n): n is string => typeof n === 'string');
}
