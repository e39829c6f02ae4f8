import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Principal } from '../payouts/model.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { DocumentClient, GetCommand, PutCommand, UpdateCommand } from '../shared/document-client.js';
import { InvalidTransitionError } from '../shared/errors.js';
import { ulid } from '../shared/ids.js';
import { type Listing, listingAttributes, queryListing } from '../shared/index-listing.js';
import type { CursorPage } from '../shared/paging.js';
import * as z from '../shared/zod.js';
import { InvalidEventError } from './inbound-errors.js';

// The schemas below are built on first use (z.lazy), not when a function loads this module: a cold start that never
// reads these items does not pay for them (docs/cold-start.md).

/** What became of a dead letter: it waits for a person, was delivered again successfully, or was put aside. */
export const DeadLetterStatus = { Open: 'open', Replayed: 'replayed', Discarded: 'discarded' } as const;
export type DeadLetterStatus = (typeof DeadLetterStatus)[keyof typeof DeadLetterStatus];
export const DEAD_LETTER_STATUSES = Object.values(DeadLetterStatus) as [
  DeadLetterStatus,
  ...DeadLetterStatus[],
];

/** One person's action on a dead letter, kept on it: the audit. */
export interface DeadLetterAction {
  readonly action: 'replay' | 'discard';
  readonly by: Principal;
  readonly at: string;
  /** Why it was discarded, or what the replay came to (`delivered`, or the error that refused it again). */
  readonly note: string;
}

/** An event no handler could accept, with the error that says why. */
export interface DeadLetter {
  readonly id: string;
  readonly event: unknown;
  /** The event's `detail-type`, when it had one: which handler a replay goes to. */
  readonly detailType?: string;
  readonly error: {
    readonly name: string;
    readonly code: string;
    readonly message: string;
    readonly issues: readonly { path: string; message: string }[];
  };
  readonly at: string;
  readonly status: DeadLetterStatus;
  readonly actions: readonly DeadLetterAction[];
}

/** Where invalid events go: the table in AWS and in `npm start` alike, so ops list, replay and discard them. */
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

const keys = {
  letter: (id: string) => ({ pk: `DEAD_LETTER#${id}`, sk: 'LETTER' }),
} as const;

/** Dead letters by status and all, newest first. */
const deadLetterListing: Listing = {
  statePartition: (status) => `DEAD_LETTER#STATUS#${status}`,
  allPartition: 'DEAD_LETTER#ALL',
};

const indexKeys = (letter: Pick<DeadLetter, 'id' | 'at' | 'status'>) =>
  listingAttributes(deadLetterListing, letter.status, letter.at, letter.id);

const principalSchema = z.lazy(() => z.object({ id: z.string(), kind: z.enum(['user', 'system']) }));
const letterSchema = z.lazy(() =>
  z.object({
    id: z.string(),
    event: z.unknown(),
    detailType: z.optional(z.string()),
    error: z.object({
      name: z.string(),
      code: z.string(),
      message: z.string(),
      issues: z.array(z.object({ path: z.string(), message: z.string() })),
    }),
    at: z.string(),
    status: z.enum(DEAD_LETTER_STATUSES),
    actions: z.array(
      z.object({
        action: z.enum(['replay', 'discard']),
        by: principalSchema,
        at: z.string(),
        note: z.string(),
      }),
    ),
  }),
);

/**
 * Dead letters in the project's table: one item each (`DEAD_LETTER#<id>`), listed by status (gsi1) and all
 * together (gsi2), newest first. A person's replay or discard is a conditional write on the status, with the
 * action appended, so two people cannot both act on one letter.
 */
export class DynamoDbDeadLetterStore implements DeadLetterSink {
  readonly #doc: DocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
  ) {
    this.#doc = DocumentClient.from(client);
  }

  async send(letter: DeadLetter): Promise<void> {
    await this.#doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.letter(letter.id), entity: 'dead-letter', ...letter, ...indexKeys(letter) },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(id: string): Promise<DeadLetter | undefined> {
    const { Item } = await this.#doc.send(
      new GetCommand({ TableName: this.tableName, Key: keys.letter(id), ConsistentRead: true }),
    );
    return Item ? letterSchema.parse(Item) : undefined;
  }

  /**
   * Dead letters newest first, optionally of one status.
   *
   * @throws InvalidCursorError when the cursor is not one this listing issued
   */
  async list(query: {
    status?: DeadLetterStatus;
    limit: number;
    cursor?: string;
  }): Promise<CursorPage<DeadLetter>> {
    const { status, ...rest } = query;
    return queryListing(
      this.#doc,
      this.tableName,
      deadLetterListing,
      { ...rest, ...(status && { state: status }) },
      (item) => letterSchema.parse(item),
    );
  }

  /**
   * Records a person's action and the letter's new status, only if it is still open.
   *
   * @throws DeadLetterChangedError when someone acted on it first
   */
  async act(letter: DeadLetter, status: DeadLetterStatus, action: DeadLetterAction): Promise<DeadLetter> {
    const after: DeadLetter = { ...letter, status, actions: [...letter.actions, action] };
    try {
      await this.#doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.letter(letter.id),
          UpdateExpression: `SET #status = :status, actions = :actions, ${Object.keys(indexKeys(after))
            .map((name) => `#${name} = :${name}`)
            .join(', ')}`,
          ConditionExpression: '#status = :open',
          ExpressionAttributeNames: {
            '#status': 'status',
            ...Object.fromEntries(Object.keys(indexKeys(after)).map((name) => [`#${name}`, name])),
          },
          ExpressionAttributeValues: {
            ':status': status,
            ':actions': after.actions,
            ':open': DeadLetterStatus.Open,
            ...Object.fromEntries(
              Object.entries(indexKeys(after)).map(([name, value]) => [`:${name}`, value]),
            ),
          },
        }),
      );
      return after;
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') {
        throw new InvalidTransitionError('dead letter', `dead letter ${letter.id} is no longer open`, {
          cause: error,
        });
      }
      throw error;
    }
  }
}

export type DeadLettered = {
  readonly deadLettered: true;
  readonly id: string;
  readonly error: DeadLetter['error'];
};

const DetailTypeOnly = z.lazy(() => z.object({ 'detail-type': z.string() }));

/** The dead letter of an invalid event: what a handler could not accept, and why. */
export function deadLetterOf(event: unknown, error: InvalidEventError, at: Date): DeadLetter {
  const detailType = DetailTypeOnly.safeParse(event);
  return {
    id: ulid(at),
    event,
    ...(detailType.success && { detailType: detailType.data['detail-type'] }),
    error: { name: error.name, code: error.code, message: error.message, issues: error.issues },
    at: at.toISOString(),
    status: DeadLetterStatus.Open,
    actions: [],
  };
}

/**
 * Wraps an event handler so that an `InvalidEventError` sends the event with its error to the sink instead
 * of failing (it can never succeed, so a retry would only delay it); every other error (DynamoDB, provider) is
 * rethrown, so the event is delivered again and, after the retries, lands on the function's failure queue.
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
