import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DocumentClient,
  PutCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '../../shared/document-client.js';
import type { InvalidTransitionError } from '../../shared/errors.js';
import { clipText, FIELD_MAXIMA } from '../../shared/field-limits.js';
import { type Listing, listingAttributes, queryListing } from '../../shared/index-listing.js';
import { itemBytes } from '../../shared/item-size.js';
import type { CursorPage } from '../../shared/paging.js';
import { readItem } from '../../shared/table-reads.js';
import * as z from '../../shared/zod.js';
import {
  type ActGuard,
  clipError,
  DEAD_LETTER_EVENT_PREVIEW,
  DEAD_LETTER_STATUSES,
  type DeadLetter,
  type DeadLetterAction,
  DeadLetterStatus,
  type DeadLetterStore,
  type ReplayClaim,
  refusalOf,
  stringField,
} from './model.js';

// The schemas below are built on first use (z.lazy), not when a function loads this module: a cold start that never
// reads these items does not pay for them (docs/cold-start.md).

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

/**
 * A letter as the table holds it. The event is in one of four forms (`eventAttributes` writes the first three):
 * - `eventJson`: the event as JSON, a string, which round-trips any JSON exactly. Not DynamoDB maps: an invalid
 *   event may hold anything JSON can, and as maps the marshaller refuses a number beyond 2^53 (`1e16`), DynamoDB
 *   one closer to 0 than 1e-130 and maps nested 32 deep, each failing the write that keeps the letter.
 * - `eventJsonGzip`: the same JSON, gzipped, when the string alone would not fit (a JSON whose numbers grow when
 *   written again: `1e20` comes back as 21 digits, so 256 KB of them as more than 1 MB).
 * - `eventPreview`, `eventBytes`, `eventId`, `replayable: false`: the start of the JSON, when even that does not
 *   fit (or DynamoDB found the item too large); such a letter can only be discarded.
 * - `event`, as DynamoDB maps: letters written before, read as they are.
 */
const storedLetterSchema = z.lazy(() =>
  z.object({
    id: z.string(),
    detailType: z.optional(z.string()),
    error: z.object({
      name: z.string(),
      code: z.string(),
      message: z.string(),
      issues: z.array(z.object({ path: z.string(), message: z.string() })),
      issuesOmitted: z.optional(z.int()),
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
    eventJson: z.optional(z.string()),
    eventJsonGzip: z.optional(z.instanceof(Uint8Array)),
    eventPreview: z.optional(z.string()),
    eventBytes: z.optional(z.int()),
    eventId: z.optional(z.string()),
    replayable: z.optional(z.boolean()),
    event: z.optional(z.unknown()),
    // Absent on letters written before replays claimed them, and on every letter no replay is delivering.
    replayClaim: z.optional(z.object({ by: principalSchema, claimId: z.string(), leaseUntil: z.string() })),
  }),
);
type StoredLetter = z.output<typeof storedLetterSchema>;

/** DynamoDB's largest item: 400 KB, attribute names and values (lib/shared/item-size.ts counts them). */
const ITEM_MAX_BYTES = 400 * 1024;
/**
 * The most a letter takes when written, so that the actions appended later still fit: each is a note of at most
 * FIELD_MAXIMA.text characters (`act` clips it), who and when, under 2 KB, so at least 16 of them, and far more
 * as they are written (a replay's note is a line).
 */
const LETTER_MAX_BYTES = ITEM_MAX_BYTES - 32 * 1024;

/** node:zlib on first use: only a letter whose JSON does not fit as a string needs it (a cold start's ~1.5 ms). */
const zlib = () => import('node:zlib');

/**
 * Dead letters in the project's table: one item each (`DEAD_LETTER#<id>`), listed by status (gsi1) and all
 * together (gsi2), newest first. A person's replay or discard is a conditional write on the status, with the
 * action appended, so two people cannot both act on one letter; a replay first claims the letter (`claimReplay`),
 * so that nothing else is recorded on it while its handler runs.
 */
export class DynamoDbDeadLetterStore implements DeadLetterStore {
  readonly #doc: DocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
  ) {
    this.#doc = DocumentClient.from(client);
  }

  /**
   * Keeps the letter, whatever event it holds: the event whole when it fits in one item (as JSON, gzipped if need
   * be), else its size, id and first characters, marked not replayable. An event is dead-lettered because it is
   * invalid, so its content must not be able to fail the write: a throw here would send it back to Lambda's
   * retries and on to the function's failure queue, where ops can neither list, replay nor discard it.
   */
  async send(letter: DeadLetter): Promise<void> {
    const base = {
      ...keys.letter(letter.id),
      entity: 'dead-letter',
      id: letter.id,
      ...(letter.detailType !== undefined && { detailType: letter.detailType }),
      error: clipError(letter.error),
      at: letter.at,
      status: letter.status,
      actions: letter.actions,
      ...indexKeys(letter),
    };
    const item = await eventAttributes(letter, base);
    try {
      await this.#put(item);
    } catch (error) {
      // The size is our estimate (lib/shared/item-size.ts); should DynamoDB count more, the smaller letter.
      if (item.replayable === false || !isItemTooLarge(error)) throw error;
      await this.#put(tooLargeItem(base, jsonOf(letter.event), letter.event));
    }
  }

  async #put(item: Record<string, unknown>): Promise<void> {
    await this.#doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: item,
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(id: string): Promise<DeadLetter | undefined> {
    const item = await readItem(this.#doc, this.tableName, keys.letter(id));
    return item ? letterOf(storedLetterSchema.parse(item)) : undefined;
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
    const page = await queryListing(
      this.#doc,
      this.tableName,
      deadLetterListing,
      { ...rest, ...(status && { state: status }) },
      (item) => storedLetterSchema.parse(item),
    );
    return { ...page, items: await Promise.all(page.items.map(letterOf)) };
  }

  /**
   * Claims an open letter for a replay by `claim.by`, before its handler runs, so that no one else acts on it
   * until the replay records what came of it (`act` with the claim) or lets go (`releaseClaim`).
   *
   * @throws InvalidTransitionError when the letter is no longer open or another replay's claim holds it
   */
  async claimReplay(id: string, claim: ReplayClaim, now: string): Promise<void> {
    const terms = guardOf({ now });
    await this.#update(id, {
      UpdateExpression: 'SET #claim = :claim',
      ConditionExpression: terms.condition,
      ExpressionAttributeNames: terms.names,
      ExpressionAttributeValues: { ...terms.values, ':claim': claim },
    });
  }

  /**
   * Records a person's action and the letter's new status, only if it is still open, and removes the replay's
   * claim in the same write: a replay's result only under its own claim, a discard only while no live claim holds
   * the letter. The action is appended to the item's list (not the list as read), so none is lost; the answer is
   * the letter as written. The note is clipped to FIELD_MAXIMA.text: a replay refused again notes the new error,
   * which may list thousands of fields, and every action stays on the item.
   *
   * @throws InvalidTransitionError when someone acted on it first, or a replay holds it
   */
  async act(
    letter: DeadLetter,
    status: DeadLetterStatus,
    action: DeadLetterAction,
    guard: ActGuard,
  ): Promise<DeadLetter> {
    const kept: DeadLetterAction = { ...action, note: clipText(action.note, FIELD_MAXIMA.text) };
    const index = indexKeys({ ...letter, status });
    const terms = guardOf(guard);
    const { Attributes } = await this.#update(letter.id, {
      UpdateExpression: `SET #status = :status, actions = list_append(actions, :action), ${Object.keys(index)
        .map((name) => `#${name} = :${name}`)
        .join(', ')} REMOVE #claim`,
      ConditionExpression: terms.condition,
      ExpressionAttributeNames: {
        ...terms.names,
        ...Object.fromEntries(Object.keys(index).map((name) => [`#${name}`, name])),
      },
      ExpressionAttributeValues: {
        ...terms.values,
        ':status': status,
        ':action': [kept],
        ...Object.fromEntries(Object.entries(index).map(([name, value]) => [`:${name}`, value])),
      },
      ReturnValues: 'ALL_NEW',
    });
    return letterOf(storedLetterSchema.parse(Attributes));
  }

  /**
   * Removes this replay's claim without recording anything: its handler failed in a way a retry may not (the
   * table, the provider), so the letter is open to the next replay at once, not only when the lease lapses.
   */
  async releaseClaim(id: string, claim: ReplayClaim): Promise<void> {
    await this.#update(id, {
      UpdateExpression: 'REMOVE #claim',
      ConditionExpression: '#claim.#claimId = :claimId',
      ExpressionAttributeNames: { '#claim': CLAIM, '#claimId': 'claimId' },
      ExpressionAttributeValues: { ':claimId': claim.claimId },
    });
  }

  /** A conditional update of the letter's item; a failed condition is refused with what holds the letter. */
  async #update(id: string, input: Omit<UpdateCommandInput, 'TableName' | 'Key'>) {
    try {
      return await this.#doc.send(
        new UpdateCommand({ ...input, TableName: this.tableName, Key: keys.letter(id) }),
      );
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') {
        throw await this.#refusal(id, error);
      }
      throw error;
    }
  }

  /** Why a conditional write on the letter failed, read after the fact: so the person is told who holds it. */
  async #refusal(id: string, cause: Error): Promise<InvalidTransitionError> {
    return refusalOf(id, await this.get(id), cause);
  }
}

/** The attribute of a letter's item that holds its replay's claim. */
const CLAIM = 'replayClaim';

/** The condition of a write to an open letter under `guard`, with its names and values. */
function guardOf(guard: ActGuard) {
  const open = {
    names: { '#status': 'status', '#claim': CLAIM },
    values: { ':open': DeadLetterStatus.Open },
  };
  if ('claim' in guard) {
    return {
      condition: '#status = :open AND #claim.#claimId = :claimId',
      names: { ...open.names, '#claimId': 'claimId' },
      values: { ...open.values, ':claimId': guard.claim.claimId },
    };
  }
  // A claim past its lease is a replay that crashed: it no longer blocks.
  return {
    condition: '#status = :open AND (attribute_not_exists(#claim) OR #claim.#leaseUntil <= :now)',
    names: { ...open.names, '#leaseUntil': 'leaseUntil' },
    values: { ...open.values, ':now': guard.now },
  };
}

/** The letter's item with its event in the first form that fits (see `storedLetterSchema`). */
async function eventAttributes(
  letter: DeadLetter,
  base: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const json = jsonOf(letter.event);
  // A letter read back already too large (a copy of one) has only its preview to keep.
  if (letter.eventTooLarge) {
    return tooLargeItem(base, json, letter.event, letter.eventTooLarge);
  }
  const plain = { ...base, eventJson: json };
  if (itemBytes(plain) <= LETTER_MAX_BYTES) return plain;
  const { gzipSync } = await zlib();
  const packed = { ...base, eventJsonGzip: gzipSync(json) };
  if (itemBytes(packed) <= LETTER_MAX_BYTES) return packed;
  return tooLargeItem(base, json, letter.event);
}

/** The smaller letter: the start of the event's JSON, its size and id; never replayed. */
function tooLargeItem(
  base: Record<string, unknown>,
  json: string,
  event: unknown,
  known?: DeadLetter['eventTooLarge'],
): Record<string, unknown> {
  const eventId = known ? known.eventId : stringField(event, 'id');
  return {
    ...base,
    eventPreview: clipText(json, DEAD_LETTER_EVENT_PREVIEW),
    eventBytes: known ? known.bytes : Buffer.byteLength(json),
    ...(eventId !== undefined && { eventId: clipText(eventId, FIELD_MAXIMA.id) }),
    replayable: false,
  };
}

/** The event as JSON: what Lambda parsed it from, so it always has one (`undefined`, in a test, is `null`). */
function jsonOf(event: unknown): string {
  return JSON.stringify(event) ?? 'null';
}

/** DynamoDB refused the item as larger than 400 KB. */
function isItemTooLarge(error: unknown): boolean {
  return error instanceof Error && error.name === 'ValidationException' && /item size/i.test(error.message);
}

async function letterOf(stored: StoredLetter): Promise<DeadLetter> {
  const { eventJson, eventJsonGzip, eventPreview, eventBytes, eventId, replayable, event, ...letter } =
    stored;
  if (eventJson !== undefined) return { ...letter, event: JSON.parse(eventJson) };
  if (eventJsonGzip !== undefined) {
    const { gunzipSync } = await zlib();
    return { ...letter, event: JSON.parse(gunzipSync(eventJsonGzip).toString('utf8')) };
  }
  if (replayable === false || eventPreview !== undefined) {
    return {
      ...letter,
      event: eventPreview ?? '',
      eventTooLarge: { bytes: eventBytes ?? 0, ...(eventId !== undefined && { eventId }) },
    };
  }
  // Written before events were kept as JSON: the event as DynamoDB maps, as the document client reads them.
  return { ...letter, event };
}
