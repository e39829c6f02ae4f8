import { InvalidCursorError } from '../../shared/errors.js';
import { clipText, FIELD_MAXIMA } from '../../shared/field-limits.js';
import type { CursorPage } from '../../shared/paging.js';
import {
  type ActGuard,
  type DeadLetter,
  type DeadLetterAction,
  DeadLetterStatus,
  type DeadLetterStore,
  type ReplayClaim,
  refusalOf,
} from './model.js';

/**
 * Dead letters in memory, with the table store's rules (`DynamoDbDeadLetterStore`): a letter is written once, an
 * action only on an open letter under its guard (a replay's own claim, or no live claim at `now`), the claim
 * removed with it, the note clipped. For unit tests of what works on the port; the table's own suite tests the
 * store (test/events/dead-letters.test.ts).
 */
export class InMemoryDeadLetterStore implements DeadLetterStore {
  readonly #letters = new Map<string, DeadLetter>();

  /** Every letter sent, oldest first. */
  get letters(): DeadLetter[] {
    return [...this.#letters.values()];
  }

  async send(letter: DeadLetter): Promise<void> {
    if (this.#letters.has(letter.id)) throw new Error(`dead letter ${letter.id} exists already`);
    this.#letters.set(letter.id, structuredClone(letter));
  }

  async get(id: string): Promise<DeadLetter | undefined> {
    const letter = this.#letters.get(id);
    return letter && structuredClone(letter);
  }

  async list(query: {
    status?: DeadLetterStatus;
    limit: number;
    cursor?: string;
  }): Promise<CursorPage<DeadLetter>> {
    const newestFirst = this.letters
      .filter((letter) => query.status === undefined || letter.status === query.status)
      .sort((a, b) => (a.at === b.at ? b.id.localeCompare(a.id) : b.at.localeCompare(a.at)));
    const start = query.cursor === undefined ? 0 : offsetOf(query.cursor);
    const items = newestFirst.slice(start, start + query.limit);
    const next = start + items.length;
    return { items, ...(next < newestFirst.length && { nextCursor: `offset:${next}` }) };
  }

  async claimReplay(id: string, claim: ReplayClaim, now: string): Promise<void> {
    const letter = this.#writable(id, { now });
    this.#letters.set(id, { ...letter, replayClaim: claim });
  }

  async act(
    letter: DeadLetter,
    status: DeadLetterStatus,
    action: DeadLetterAction,
    guard: ActGuard,
  ): Promise<DeadLetter> {
    const { replayClaim: _released, ...current } = this.#writable(letter.id, guard);
    const written: DeadLetter = {
      ...current,
      status,
      actions: [...current.actions, { ...action, note: clipText(action.note, FIELD_MAXIMA.text) }],
    };
    this.#letters.set(letter.id, written);
    return structuredClone(written);
  }

  async releaseClaim(id: string, claim: ReplayClaim): Promise<void> {
    const letter = this.#letters.get(id);
    if (letter?.replayClaim?.claimId !== claim.claimId) throw refusalOf(id, letter);
    const { replayClaim: _released, ...rest } = letter;
    this.#letters.set(id, rest);
  }

  /** The letter when `guard` may write to it, as the table's condition expressions decide; refused otherwise. */
  #writable(id: string, guard: ActGuard): DeadLetter {
    const letter = this.#letters.get(id);
    const open = letter?.status === DeadLetterStatus.Open;
    const claim = letter?.replayClaim;
    const allowed =
      'claim' in guard
        ? claim?.claimId === guard.claim.claimId
        : claim === undefined || claim.leaseUntil <= guard.now;
    if (!letter || !open || !allowed) throw refusalOf(id, letter);
    return letter;
  }
}

function offsetOf(cursor: string): number {
  const match = /^offset:(\d+)$/.exec(cursor);
  if (!match) throw new InvalidCursorError('cursor is not one this listing issued');
  return Number(match[1]);
}
