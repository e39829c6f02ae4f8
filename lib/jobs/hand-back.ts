import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { Logger } from '../shared/logger.js';

/** A message handed back is delivered again after this long the first time, doubling per receive. */
export const HAND_BACK_FIRST_VISIBILITY_SECONDS = 5;
/** ... and never later than one sweeper tick after it was handed back. */
export const HAND_BACK_MAX_VISIBILITY_SECONDS = 60;

/** How long a message received `receiveCount` times stays invisible once handed back: 5, 10, 20, 40, 60 s. */
export function handBackVisibilitySeconds(receiveCount: number): number {
  const receives = Number.isInteger(receiveCount) && receiveCount >= 1 ? receiveCount : 1;
  return Math.min(
    HAND_BACK_MAX_VISIBILITY_SECONDS,
    HAND_BACK_FIRST_VISIBILITY_SECONDS * 2 ** Math.min(receives - 1, 10),
  );
}

/** The queue's ChangeMessageVisibility: answers how many of the messages it did not change. */
export interface MessageVisibility {
  changeVisibility(
    entries: readonly { readonly receiptHandle: string; readonly visibilitySeconds: number }[],
  ): Promise<number>;
}

/**
 * Makes the messages a worker hands back (`batchItemFailures`: not started before the deadline, a read or a
 * claim that failed or lost to contention) visible again within seconds, instead of at the end of the queue's
 * visibility timeout (24 minutes), which SQS applies to a partial batch response. The wait doubles per receive
 * (a store that stays unreachable is not hammered) and stays within a tick; after `maxReceiveCount` receives
 * the message goes to the DLQ as before, and the sweeper enqueues the payout again. Never throws: a message it
 * could not change keeps the visibility timeout, late but not lost (the payout stays due in the table).
 *
 * @example
 * const response = await runQueueBatch(...);
 * await handBackPromptly(visibility, event, response, logger);
 */
export async function handBackPromptly(
  visibility: MessageVisibility | undefined,
  event: SQSEvent,
  response: SQSBatchResponse,
  logger: Logger,
): Promise<void> {
  const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
  const entries = event.Records.filter((record) => failed.has(record.messageId)).map((record) => ({
    receiptHandle: record.receiptHandle,
    visibilitySeconds: handBackVisibilitySeconds(Number(record.attributes.ApproximateReceiveCount)),
  }));
  if (entries.length === 0 || !visibility) return;
  try {
    const unchanged = await visibility.changeVisibility(entries);
    if (unchanged > 0) {
      logger.warn('messages handed back keep the visibility timeout', { unchanged, of: entries.length });
    }
  } catch (error) {
    logger.warn('could not hand messages back for a prompt redelivery; they keep the visibility timeout', {
      messages: entries.length,
      error: error instanceof Error ? error.name : 'unknown',
    });
  }
}
