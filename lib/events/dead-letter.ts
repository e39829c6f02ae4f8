import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type Clock, systemClock } from '../shared/clock.js';
import * as z from '../shared/zod.js';
import { InvalidEventError } from './inbound-errors.js';

/** An event no handler can ever accept, with the error that says why. */
export interface DeadLetter {
  readonly event: unknown;
  readonly error: {
    readonly name: string;
    readonly code: string;
    readonly message: string;
    readonly issues: readonly { path: string; message: string }[];
  };
  readonly at: string;
}

/**
 * Where invalid events go. In AWS the handler throws instead and Lambda's on-failure destination (an SQS
 * queue configured in infra/) receives the event with the error message; this interface is the local and
 * test stand-in for that queue.
 */
export interface DeadLetterSink {
  send(letter: DeadLetter): Promise<void>;
}

/** Keeps dead letters in memory (tests). */
export class InMemoryDeadLetterSink implements DeadLetterSink {
  readonly letters: DeadLetter[] = [];
  async send(letter: DeadLetter): Promise<void> {
    this.letters.push(letter);
  }
}

const DEAD_LETTER_PK = 'DEAD_LETTER#event';
const letterSchema = z.object({
  event: z.unknown(),
  error: z.object({
    name: z.string(),
    code: z.string(),
    message: z.string(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })),
  }),
  at: z.string(),
});

/** Keeps dead letters in the project's table (local mode), newest last, under `pk = DEAD_LETTER#event`. */
export class DynamoDbDeadLetterSink implements DeadLetterSink {
  readonly #doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
  ) {
    this.#doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }

  async send(letter: DeadLetter): Promise<void> {
    const suffix = Math.random().toString(36).slice(2, 10);
    await this.#doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { pk: DEAD_LETTER_PK, sk: `${letter.at}#${suffix}`, entity: 'dead-letter', ...letter },
      }),
    );
  }

  async list(limit = 50): Promise<DeadLetter[]> {
    const { Items } = await this.#doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': DEAD_LETTER_PK },
        Limit: limit,
      }),
    );
    return (Items ?? []).map((item) => letterSchema.parse(item));
  }
}

export type DeadLettered = { readonly deadLettered: true; readonly error: DeadLetter['error'] };

/**
 * Wraps an event handler so that an `InvalidEventError` sends the event with its error to the sink instead
 * of failing; every other error (DynamoDB, provider) is rethrown, so the event is delivered again.
 *
 * @example
 * const handle = withDeadLetter((event) => handlePayoutRequested(engine, event), sink);
 * const outcome = await handle(event); // { deadLettered: true, error } for a malformed event
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
      const letter: DeadLetter = {
        event,
        error: { name: error.name, code: error.code, message: error.message, issues: error.issues },
        at: clock.now().toISOString(),
      };
      await sink.send(letter);
      return { deadLettered: true, error: letter.error };
    }
  };
}
