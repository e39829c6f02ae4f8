import type { Principal } from '../payouts/model.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { InvalidTransitionError, NotFoundError } from '../shared/errors.js';
import { type DeadLetter, DeadLetterStatus, type DynamoDbDeadLetterStore } from './dead-letter.js';
import { InvalidEventError } from './inbound-errors.js';
import type { InboundDelivery, InboundHandler } from './inbound-handlers.js';
import type { InboundEventType } from './schemas.js';

export interface ReplayResult {
  readonly letter: DeadLetter;
  /** True when the handler took the event this time. */
  readonly delivered: boolean;
  readonly outcome?: unknown;
}

/**
 * Ops on dead letters: list, replay (the event goes to its handler again, exactly as the rule would deliver it:
 * a payout it asks for passes the same control gate and idempotency), and discard with a reason. Every action is
 * recorded on the letter with who and when; only an open letter can be acted on, once.
 *
 * @example const { delivered } = await service.replay(id, { id: 'alice', kind: 'user' });
 */
export class DeadLetterService {
  constructor(
    private readonly store: DynamoDbDeadLetterStore,
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
   * Delivers the event to its handler again. Taken: the letter becomes `replayed`. Refused again as invalid: it
   * stays open, with this replay and the new error recorded. Any other failure (the table, the provider) is
   * thrown and nothing is recorded, as an event delivery would be retried.
   *
   * @throws DeadLetterNotFoundError, DeadLetterNotReplayableError, DeadLetterChangedError
   */
  async replay(id: string, actor: Principal, delivery: InboundDelivery = {}): Promise<ReplayResult> {
    const letter = await this.#open(id);
    const handler = letter.detailType ? this.handlers[letter.detailType as InboundEventType] : undefined;
    if (!handler) {
      throw new InvalidTransitionError(
        'dead letter',
        `dead letter ${id} has detail-type ${letter.detailType ?? '(none)'}, which no handler takes; discard it`,
      );
    }
    const at = this.clock.now().toISOString();
    try {
      const outcome = await handler(letter.event, delivery);
      const after = await this.store.act(letter, DeadLetterStatus.Replayed, {
        action: 'replay',
        by: actor,
        at,
        note: 'delivered',
      });
      return { letter: after, delivered: true, outcome };
    } catch (error) {
      if (!(error instanceof InvalidEventError)) throw error;
      const after = await this.store.act(letter, DeadLetterStatus.Open, {
        action: 'replay',
        by: actor,
        at,
        note: `refused again: ${error.message}`,
      });
      return { letter: after, delivered: false };
    }
  }

  /** Puts an open letter aside for good, with the reason. */
  async discard(id: string, actor: Principal, reason: string): Promise<DeadLetter> {
    const letter = await this.#open(id);
    return this.store.act(letter, DeadLetterStatus.Discarded, {
      action: 'discard',
      by: actor,
      at: this.clock.now().toISOString(),
      note: reason,
    });
  }

  async #open(id: string): Promise<DeadLetter> {
    const letter = await this.get(id);
    if (letter.status !== DeadLetterStatus.Open) {
      throw new InvalidTransitionError('dead letter', `dead letter ${id} is ${letter.status}, not open`);
    }
    return letter;
  }
}
