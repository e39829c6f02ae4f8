import { type Clock, systemClock } from '../../shared/clock.js';
import { clipText, FIELD_MAXIMA } from '../../shared/field-limits.js';
import { ulid } from '../../shared/ids.js';
import { InvalidEventError } from '../inbound-errors.js';
import { clipError, type DeadLetter, type DeadLetterSink, DeadLetterStatus, stringField } from './model.js';

export type DeadLettered = {
  readonly deadLettered: true;
  readonly id: string;
  readonly error: DeadLetter['error'];
};

/**
 * The dead letter of an invalid event: what a handler could not accept, and why (the error clipped: `clipError`).
 * The detail-type is clipped to FIELD_MAXIMA.name: every one a handler takes is shorter.
 */
export function deadLetterOf(event: unknown, error: InvalidEventError, at: Date): DeadLetter {
  const detailType = stringField(event, 'detail-type');
  return {
    id: ulid(at),
    event,
    ...(detailType !== undefined && { detailType: clipText(detailType, FIELD_MAXIMA.name) }),
    error: clipError({ name: error.name, code: error.code, message: error.message, issues: error.issues }),
    at: at.toISOString(),
    status: DeadLetterStatus.Open,
    actions: [],
  };
}

/**
 * Wraps an event handler so that an `InvalidEventError` sends the event with its error to the sink instead
 * of failing (it can never succeed, so a retry would only delay it); every other error (DynamoDB, provider) is
 * rethrown, so the event is delivered again and, after the retries, lands on the function's failure queue.
 * Whatever the invalid event holds, the table's sink keeps it (`DynamoDbDeadLetterStore.send`).
 *
 * @example
 * const handle = withDeadLetter((event) => handlePayoutRequested(engine, event), store);
 * const outcome = await handle(event); // { deadLettered: true, id, error } for a malformed event
 */
export function withDeadLetter<E, R>(
  handler: (event: E) => Promise<R>,
  sink: DeadLetterSink,
  clock: Clock = systemClock,
): (event: E) => Promise<R | DeadLettered> {
  return async (event) => {
    try {
      return await handler(event);
    } catch (error) {
      if (!(error instanceof InvalidEventError)) throw error;
      const letter = deadLetterOf(event, error, clock.now());
      await sink.send(letter);
      return { deadLettered: true, id: letter.id, error: letter.error };
    }
  };
}
