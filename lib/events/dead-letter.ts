import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Principal } from '../payouts/model.js';
import { type Clock, systemClock } from '../shared/clock.js';
import {
  DocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '../shared/document-client.js';
import { InvalidTransitionError } from '../shared/errors.js';
import { clipText, FIELD_MAXIMA } from '../shared/field-limits.js';
import { ulid } from '../shared/ids.js';
import { type Listing, listingAttributes, queryListing } from '../shared/index-listing.js';
import { itemBytes } from '../shared/item-size.js';
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
  /**
   * The event as delivered. When it was too large to keep (`eventTooLarge`), only the start of its JSON, a
   * string: no handler takes that, so a replay is refused again.
   */
  readonly event: unknown;
  /** The event's `detail-type`, when it had one: which handler a replay goes to. */
  readonly detailType?: string;
  readonly error: DeadLetterError;
  readonly at: string;
  readonly status: DeadLetterStatus;
  readonly actions: readonly DeadLetterAction[];
  /**
   * Set when the event did not fit in the table's item whole: its size as JSON and its `id`. `event` then holds
   * the start of its JSON; the letter cannot be replayed, only discarded (the sender must send it again).
   */
  readonly eventTooLarge?: { readonly bytes: number; readonly eventId?: string };
  /** Set while a replay is delivering the event (`DynamoDbDeadLetterStore.claimReplay`). */
  readonly replayClaim?: ReplayClaim;
}

/**
 * A replay's hold on an open letter while its handler runs. Without it a discard could commit while the handler
 * pays the payout, and the letter would say "discarded" of an event that was delivered. Until `leaseUntil` no one
 * else can act on the letter; after it (a replay that crashed) the claim no longer blocks.
 */
export interface ReplayClaim {
  readonly by: Principal;
  /** This replay's own id: only the replay that claimed the letter finishes or releases the claim. */
  readonly claimId: string;
  /** ISO 8601; longer than a replay can run (`DEAD_LETTER_REPLAY_LEASE_MS`). */
  readonly leaseUntil: string;
}

/**
 * Why the event was refused: the first `DEAD_LETTER_ISSUES` fields that are wrong, each clipped, and the message
 * clipped, as `deadLetterOf` keeps them: an event can name thousands of unknown fields, each issue and the
 * message listing them all, and the letter must fit in one item.
 */
export interface DeadLetterError {
  readonly name: string;
  readonly code: string;
  readonly message: string;
  readonly issues: readonly { path: string; message: string }[];
  /** Issues left out after the first `DEAD_LETTER_ISSUES` (the message says so too). */
  readonly issuesOmitted?: number;
}

/** Issues a letter keeps: as many as `GET /dead-letters/{id}` answers. */
export const DEAD_LETTER_ISSUES = FIELD_MAXIMA.issues;
/** Characters of the event's JSON a letter keeps when the event is too large to keep whole. */
export const DEAD_LETTER_EVENT_PREVIEW = 1_000;
/**
 * How long a replay's claim holds the letter: longer than the ops API function that replays it runs (29 s, its
 * timeout: infra/handlers.ts, `API_DEADLINES.localBudgetMs`), so a claim never lapses under a replay still
 * running, and a replay that crashed frees the letter within a minute.
 */
export const DEAD_LETTER_REPLAY_LEASE_MS = 60_000;

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
export class DynamoDbDeadLetterStore implements DeadLetterSink {
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
    const { Item } = await this.#doc.send(
      new GetCommand({ TableName: this.tableName, Key: keys.letter(id), ConsistentRead: true }),
    );
    return Item ? letterOf(storedLetterSchema.parse(Item)) : undefined;
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
    const current = await this.get(id);
    const claim = current?.replayClaim;
    const detail =
      current && current.status !== DeadLetterStatus.Open
        ? `dead letter ${id} is ${current.status}, not open`
        : claim
          ? `dead letter ${id} is being replayed by ${claim.by.id} (claimed until ${claim.leaseUntil}); try again once that replay is done`
          : `dead letter ${id} is no longer open`;
    return new InvalidTransitionError('dead letter', detail, { cause });
  }
}

/** The attribute of a letter's item that holds its replay's claim. */
const CLAIM = 'replayClaim';

/** Who may write to a letter: a replay holding its claim, or anyone at `now` while no live claim holds it. */
export type ActGuard = { readonly claim: ReplayClaim } | { readonly now: string };

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

/**
 * The error as a letter keeps it: the first DEAD_LETTER_ISSUES issues, each within what the API answers of one
 * (FIELD_MAXIMA.name, FIELD_MAXIMA.text), the message within FIELD_MAXIMA.message and saying how many issues were
 * left out. An event with 9,000 unknown fields otherwise lists them in an issue and again in the message, which
 * with the event itself is more than an item holds. Clipping a clipped error changes nothing.
 */
export function clipError(error: DeadLetterError): DeadLetterError {
  const issues = error.issues.slice(0, DEAD_LETTER_ISSUES).map((issue) => ({
    path: clipText(issue.path, FIELD_MAXIMA.name),
    message: clipText(issue.message, FIELD_MAXIMA.text),
  }));
  const before = error.issuesOmitted ?? 0;
  const leftOut = error.issues.length - issues.length;
  const said =
    leftOut > 0 ? ` (${before + error.issues.length} issues; the first ${issues.length} kept)` : '';
  return {
    name: clipText(error.name, FIELD_MAXIMA.word),
    code: clipText(error.code, FIELD_MAXIMA.word),
    message: `${clipText(error.message, FIELD_MAXIMA.message - said.length)}${said}`,
    issues,
    ...(before + leftOut > 0 && { issuesOmitted: before + leftOut }),
  };
}

export type DeadLettered = {
  readonly deadLettered: true;
  readonly id: string;
  readonly error: DeadLetter['error'];
};

/** `event[name]` when the event is an object and that field a string. */
function stringField(event: unknown, name: string): string | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const value: unknown = (event as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

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
