import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { jitteredPause } from './jitter.js';

/** How many times a transaction that only collided with another is sent again before its caller gives up. */
export const MAX_CONFLICT_RETRIES = 4;

/** The longest jittered pause before one of those sends: a transaction in flight finishes within milliseconds. */
export const CONFLICT_PAUSE_CAP_MS = 100;

/** The reasons, one per item, that DynamoDB cancelled a transaction for; undefined for any other error. */
export function cancellationReasons(error: unknown): (string | undefined)[] | undefined {
  if (!(error instanceof TransactionCanceledException)) return undefined;
  return (error.CancellationReasons ?? []).map((reason) => reason.Code);
}

/**
 * Commits a transaction (`commit` sends it), sending it again after a jittered pause while DynamoDB cancels it only
 * for a `TransactionConflict`, at most MAX_CONFLICT_RETRIES times. Such a cancellation means another transaction was
 * on one of its items at that moment (a shared cap counter, a transaction's refunded total, a tick's write): every
 * condition held and nothing was written, so the same write is still exactly the one decided on. Any other
 * cancellation, or conflicts that outlast the retries, are `refused`'s to answer, with the reasons per item: it
 * throws the caller's error for the condition that failed, or answers as the caller does when one did (false: the
 * record changed, read it again). An error that is not a cancellation is thrown as it is.
 *
 * @example
 * await commitRetryingConflicts(
 *   () => doc.send(new TransactWriteCommand({ TransactItems: items })),
 *   () => { throw new ConcurrentModificationError('payout', id); },
 * );
 */
export async function commitRetryingConflicts<T>(
  commit: () => Promise<T>,
  refused: (reasons: readonly (string | undefined)[], error: TransactionCanceledException) => T | Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await commit();
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (!reasons || !(error instanceof TransactionCanceledException)) throw error;
      const collidedOnly =
        !reasons.includes('ConditionalCheckFailed') && reasons.includes('TransactionConflict');
      if (!collidedOnly || attempt >= MAX_CONFLICT_RETRIES) return refused(reasons, error);
      await jitteredPause(attempt, CONFLICT_PAUSE_CAP_MS);
    }
  }
}
