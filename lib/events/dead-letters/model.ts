import type { Principal } from '../../controls/index.js';
import { InvalidTransitionError } from '../../shared/errors.js';
import { clipText, FIELD_MAXIMA } from '../../shared/field-limits.js';
import type { CursorPage } from '../../shared/paging.js';

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

/** Who may write to a letter: a replay holding its claim, or anyone at `now` while no live claim holds it. */
export type ActGuard = { readonly claim: ReplayClaim } | { readonly now: string };

/**
 * The dead letters as ops act on them: the port the service works against (`DynamoDbDeadLetterStore` in the
 * table, `InMemoryDeadLetterStore` in unit tests). A person's replay or discard is a conditional write on the
 * status, so two people cannot both act on one letter; a replay first claims the letter, so that nothing else is
 * recorded on it while its handler runs.
 */
export interface DeadLetterStore extends DeadLetterSink {
  get(id: string): Promise<DeadLetter | undefined>;
  /**
   * Dead letters newest first, optionally of one status.
   *
   * @throws InvalidCursorError when the cursor is not one this listing issued
   */
  list(query: { status?: DeadLetterStatus; limit: number; cursor?: string }): Promise<CursorPage<DeadLetter>>;
  /**
   * Claims an open letter for a replay by `claim.by`, before its handler runs, so that no one else acts on it
   * until the replay records what came of it (`act` with the claim) or lets go (`releaseClaim`).
   *
   * @throws InvalidTransitionError when the letter is no longer open or another replay's claim holds it
   */
  claimReplay(id: string, claim: ReplayClaim, now: string): Promise<void>;
  /**
   * Records a person's action and the letter's new status, only if it is still open, and removes the replay's
   * claim in the same write: a replay's result only under its own claim, a discard only while no live claim
   * holds the letter. Answers the letter as written.
   *
   * @throws InvalidTransitionError when someone acted on it first, or a replay holds it
   */
  act(
    letter: DeadLetter,
    status: DeadLetterStatus,
    action: DeadLetterAction,
    guard: ActGuard,
  ): Promise<DeadLetter>;
  /** Removes this replay's claim without recording anything, so the next replay may start at once. */
  releaseClaim(id: string, claim: ReplayClaim): Promise<void>;
}

/** Why a write on a letter was refused, from the letter as it is now: so the person is told who holds it. */
export function refusalOf(
  id: string,
  current: DeadLetter | undefined,
  cause?: Error,
): InvalidTransitionError {
  const claim = current?.replayClaim;
  const detail =
    current && current.status !== DeadLetterStatus.Open
      ? `dead letter ${id} is ${current.status}, not open`
      : claim
        ? `dead letter ${id} is being replayed by ${claim.by.id} (claimed until ${claim.leaseUntil}); try again once that replay is done`
        : `dead letter ${id} is no longer open`;
  return new InvalidTransitionError('dead letter', detail, cause ? { cause } : undefined);
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

/** `event[name]` when the event is an object and that field a string. */
export function stringField(event: unknown, name: string): string | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const value: unknown = (event as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}
