import type { Principal } from '../../controls/index.js';
import { addMs } from '../../payouts/index.js';
import { type Clock, systemClock } from '../../shared/clock.js';
import { InvalidTransitionError, NotFoundError } from '../../shared/errors.js';
import { ulid } from '../../shared/ids.js';
import { InvalidEventError } from '../inbound-errors.js';
import type { InboundDelivery, InboundHandler } from '../inbound-handlers.js';
import type { InboundEventType } from '../schemas.js';
import {
  DEAD_LETTER_REPLAY_LEASE_MS,
  type DeadLetter,
  DeadLetterStatus,
  type DeadLetterStore,
  type ReplayClaim,
} from './model.js';

export interface ReplayResult {
  readonly letter: DeadLetter;
  /** True when the handler took the event this time. */
  readonly delivered: boolean;
  readonly outcome?: unknown;
}

/**
 * Ops on dead letters: list, replay (the event goes to its handler again, exactly as the rule would deliver it:
 * a payout it asks for passes the same control gate and idempotency), and discard with a reason. Every action is
 * recorded on the letter with who and when; only an open letter can be acted on, once, and not while a replay is
 * delivering it.
 *
 * @example const { delivered } = await service.replay(id, { id: 'alice', kind: 'user' });
 */
export class DeadLetterService {
  constructor(
    private readonly store: DeadLetterStore,
    private readonly handlers: Readonly<Record<InboundEventType, InboundHandler>>,
    private readonly clock: Clock = systemClock,
  ) {}

  list(query: { status?: DeadLetterStatus; limit: number; cursor?: string }) {
    return this.store.list(query);
  }

  async get(id: string): Promise<DeadLetter> {
    const letter = await this.store.get(id);
    if (!letter) throw new NotFoundError('dead letter', id);
    return letter;
  }

  /**
   * Delivers the event to its handler again, under a claim on the letter (`DeadLetterStore.claimReplay`)
   * taken before the handler runs: while it holds, a discard or another replay is refused, so the letter cannot
   * be recorded as discarded while its event is delivered. Taken: the letter becomes `replayed`. Refused again as
   * invalid: it stays open, with this replay and the new error recorded. Either is written with the claim
   * removed. Any other failure (the table, the provider) lets go of the claim and is thrown with nothing
   * recorded, as an event delivery would be retried.
   *
   * @throws NotFoundError; InvalidTransitionError when the letter is not open, another replay holds it, or it
   *   cannot be delivered (no handler for its detail-type, or its event too large to have been kept)
   */
  async replay(id: string, actor: Principal, delivery: InboundDelivery = {}): Promise<ReplayResult> {
    const letter = await this.#open(id);
    const handler = this.#handlerOf(letter);
    const now = this.clock.now();
    const claim: ReplayClaim = {
      by: actor,
      claimId: ulid(now),
      leaseUntil: addMs(now, DEAD_LETTER_REPLAY_LEASE_MS),
    };
    await this.store.claimReplay(id, claim, now.toISOString());
    const record = (status: DeadLetterStatus, note: string) =>
      this.store.act(letter, status, { action: 'replay', by: actor, at: now.toISOString(), note }, { claim });
    let outcome: unknown;
    try {
      outcome = await handler(letter.event, delivery);
    } catch (error) {
      if (error instanceof InvalidEventError) {
        return {
          letter: await record(DeadLetterStatus.Open, `refused again: ${error.message}`),
          delivered: false,
        };
      }
      // Best effort: should this write fail too, the lease frees the letter; the handler's error is the answer.
      await this.store.releaseClaim(id, claim).catch(() => undefined);
      throw error;
    }
    return { letter: await record(DeadLetterStatus.Replayed, 'delivered'), delivered: true, outcome };
  }

  /** Puts an open letter aside for good, with the reason; not while a replay holds it. */
  async discard(id: string, actor: Principal, reason: string): Promise<DeadLetter> {
    const letter = await this.#open(id);
    const now = this.clock.now().toISOString();
    return this.store.act(
      letter,
      DeadLetterStatus.Discarded,
      { action: 'discard', by: actor, at: now, note: reason },
      { now },
    );
  }

  /**
   * The handler a replay delivers the letter's event to. Checked before anything is written: a letter that kept
   * only the start of its event holds no event to deliver (its handler would refuse the preview and record a
   * replay as if the event had been tried).
   */
  #handlerOf(letter: DeadLetter): InboundHandler {
    if (letter.eventTooLarge) {
      throw new InvalidTransitionError(
        'dead letter',
        `dead letter ${letter.id} kept only the start of its event (${letter.eventTooLarge.bytes} bytes, too large to keep), so it cannot be replayed; discard it and have the sender send the event again`,
      );
    }
    const handler = letter.detailType ? this.handlers[letter.detailType as InboundEventType] : undefined;
    if (!handler) {
      throw new InvalidTransitionError(
        'dead letter',
        `dead letter ${letter.id} has detail-type ${letter.detailType ?? '(none)'}, which no handler takes; discard it`,
      );
    }
    return handler;
  }

  async #open(id: string): Promise<DeadLetter> {
    const letter = await this.get(id);
    if (letter.status !== DeadLetterStatus.Open) {
      throw new InvalidTransitionError('dead letter', `dead letter ${id} is ${letter.status}, not open`);
    }
    return letter;
  }
}
