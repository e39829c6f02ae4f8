import type { Principal } from '../controls/index.js';
import type { Clock } from '../shared/clock.js';
import { ulid } from '../shared/ids.js';
import type { CommandAuditEvent, Recurrence, RecurrenceAction, RecurrenceAuditEvent } from './model.js';

/**
 * What a provisional event's reason starts with, ahead of the command's own reason, so that a long reason clipped in
 * an answer never loses it. It is shown only while the command's own event does not supersede it, so a reader sees
 * it only for a command that has not (or never) committed.
 */
const NOT_COMMITTED =
  'not committed (a concurrent change won after its retries, or it was cut off): the occurrence records it changed stay as the history shows, the recurring payout as it was';

/**
 * The audit of one invocation of a command on a recurring payout (pause, resume, cancel, skip, approve). The command
 * changes occurrence records before its own conditional write of the recurrence (a pause holds the occurrences whose
 * payouts it cancelled; a skip records the skip; a resume, an approval or a cancellation records the occurrences
 * that passed as skipped), and that write may lose to a concurrent one each time it is tried, the command then
 * answering 409; or the request may be cut off first. So the first occurrence write carries a provisional audit
 * event of the command in its own transaction (model.ts, CommandAuditEvent), and the command's own event, written
 * with the recurrence, supersedes it by `commandId`: every occurrence record a command changes is audited, whether or
 * not the command commits.
 *
 * Only the first write that commits needs to carry it: the writes after it are covered by an event already written.
 * Until one has, the writes go one at a time (a transaction each, never two racing over the same audit item); after,
 * as many at once as the caller runs.
 *
 * @example
 * const audit = new CommandAudit({ recurrenceId, actor, action: 'paused', reason: `paused by ${actor.id}`, clock });
 * const held = await audit.write(recurrence, (provisional) => store.holdOccurrence(id, date, payoutId, why, provisional));
 * await store.replace(recurrence, after, audit.event({ recurrenceId, sequence, at, actor, action, reason }));
 */
export class CommandAudit {
  readonly commandId: string;
  readonly #recurrenceId: string;
  readonly #actor: Principal;
  readonly #action: RecurrenceAction;
  readonly #reason: string;
  readonly #clock: Clock;
  #committed = false;
  #turn: Promise<unknown> = Promise.resolve();

  constructor(options: {
    readonly recurrenceId: string;
    readonly actor: Principal;
    readonly action: RecurrenceAction;
    /** What the command's own event will say (without what the command decides as it runs). */
    readonly reason: string;
    readonly clock: Clock;
  }) {
    this.#recurrenceId = options.recurrenceId;
    this.#actor = options.actor;
    this.#action = options.action;
    this.#reason = options.reason;
    this.#clock = options.clock;
    this.commandId = ulid(options.clock.now());
  }

  /**
   * Runs `write`, one conditional occurrence write of the command on `recurrence` as the attempt read it: with the
   * provisional event to commit in the same transaction while none has committed yet, without one after. Its
   * answer is `write`'s (false: the record changed meanwhile, nothing written, the event neither).
   */
  write(
    recurrence: Recurrence,
    write: (provisional: CommandAuditEvent | undefined) => Promise<boolean>,
  ): Promise<boolean> {
    if (this.#committed) return write(undefined);
    const turn = this.#turn.then(async () => {
      if (this.#committed) return write(undefined);
      const written = await write(this.#provisional(recurrence));
      if (written) this.#committed = true;
      return written;
    });
    // The next write waits for this one whatever it answers: a failed one leaves the event for the next to carry.
    this.#turn = turn.catch(() => undefined);
    return turn;
  }

  /** The command's own event, tied to this invocation, so that it supersedes the provisional one. */
  event(event: RecurrenceAuditEvent): CommandAuditEvent {
    return { ...event, commandId: this.commandId };
  }

  /** The provisional event, at the version the attempt read (the command has changed none). */
  #provisional(recurrence: Recurrence): CommandAuditEvent {
    return {
      recurrenceId: this.#recurrenceId,
      sequence: recurrence.version,
      at: this.#clock.now().toISOString(),
      actor: this.#actor,
      action: this.#action,
      reason: `${NOT_COMMITTED}; ${this.#reason}`,
      commandId: this.commandId,
    };
  }
}
