import type { CreationCompanion } from '../../payouts/index.js';
import type {
  CommandAuditEvent,
  OccurrenceRecord,
  Recurrence,
  RecurrenceAuditEvent,
  RecurrenceStatus,
  RecurrenceTrailEvent,
} from '../model.js';

export type CreateRecurrenceOutcome =
  | { readonly created: true; readonly recurrence: Recurrence }
  | { readonly created: false; readonly existing: Recurrence };

export type RecordMaterialisedOutcome =
  | { readonly recorded: true; readonly record: OccurrenceRecord }
  | { readonly recorded: false; readonly current: OccurrenceRecord };

export interface RecurrencePage {
  readonly items: Recurrence[];
  readonly nextCursor?: string;
}

/**
 * Persistence of recurring payouts and their occurrence history. Every change of a recurrence is
 * conditional on its version; a lost race is a RecurrenceConflictError, never a silent overwrite.
 */
export interface RecurrenceStore {
  /** Creates the recurrence and its idempotency key together, or returns the one that holds the key. */
  create(recurrence: Recurrence, audit: RecurrenceAuditEvent): Promise<CreateRecurrenceOutcome>;
  get(id: string): Promise<Recurrence | undefined>;
  /**
   * Writes `after` only if the stored item is still at `before.version`, with its audit event when given (a
   * command's, with its `commandId`: it supersedes the command's provisional event, if it wrote one).
   */
  replace(
    before: Recurrence,
    after: Recurrence,
    audit?: RecurrenceAuditEvent | CommandAuditEvent,
  ): Promise<Recurrence>;
  /**
   * The audit trail of one recurrence, oldest first: every command's event (`committed: true`), and the provisional
   * event of a command that changed occurrence records but never committed its own (model.ts, CommandAuditEvent),
   * `committed: false`.
   */
  audit(id: string): Promise<RecurrenceTrailEvent[]>;
  list(query: { status?: RecurrenceStatus; limit: number; cursor?: string }): Promise<RecurrencePage>;
  /**
   * Active recurrences whose next occurrence is at or before `dueBy`, earliest first. Reads only those
   * (a range on the work-queue index), so its cost follows what is due, not what exists.
   */
  due(dueBy: string, limit: number): Promise<{ items: Recurrence[]; read: number }>;
  /**
   * Records an occurrence's payout (state `materialised`, its `payoutId` and `generation`), only when nothing
   * was recorded yet, when the record is `held` at an older generation, or when it already names this payout.
   * Anything else (a skip recorded first, a newer generation) wins: the current record is returned instead.
   */
  recordMaterialised(record: OccurrenceRecord): Promise<RecordMaterialisedOutcome>;
  /**
   * The writes that record an occurrence's payout in the transaction that creates the payout (its companion), so
   * that no payout of an occurrence ever exists without the record naming it: a tick that dies after the create
   * leaves a payout every pause, cancel and skip finds. They also step the recurrence's version by one, so a
   * command that read it before fails its conditional write and reads the history again. The create is refused
   * (CreationCompanionRefusedError, nothing written) unless the record could be written as `recordMaterialised`
   * writes a new one and the recurrence is still at `recurrence.version`. With `advanced` (the recurrence past
   * this occurrence, as the tick would write it next), that step is the write of `advanced` itself, so the
   * recurrence is written once per occurrence.
   */
  materialisation(record: OccurrenceRecord, recurrence: Recurrence, advanced?: Recurrence): CreationCompanion;
  /**
   * Marks a materialised occurrence `held` after a pause cancelled its payout; only while the record still
   * names that payout and is `materialised`. False when it changed meanwhile. With a command's `provisional` audit
   * event, both commit in one transaction (or neither).
   */
  holdOccurrence(
    recurrenceId: string,
    localDate: string,
    payoutId: string,
    reason: string,
    provisional?: CommandAuditEvent,
  ): Promise<boolean>;
  /**
   * Records a skip (named skip, passed over while paused or before approval, cancelled), only over `expected`,
   * the record the caller read (none when absent): same state and payoutId. False when it changed meanwhile. With a
   * command's `provisional` audit event, both commit in one transaction (or neither).
   */
  recordSkipped(
    record: OccurrenceRecord,
    expected?: OccurrenceRecord,
    provisional?: CommandAuditEvent,
  ): Promise<boolean>;
  getOccurrence(recurrenceId: string, localDate: string): Promise<OccurrenceRecord | undefined>;
  /** Occurrence history, newest first; with `before` (a local date), only the occurrences before it. */
  occurrences(recurrenceId: string, limit: number, before?: string): Promise<OccurrenceRecord[]>;
  /**
   * Every record from the local date `from` to `to` (inclusive; without it, to the newest), oldest first: a range
   * of the keys, read page by page, however many records the range holds.
   */
  occurrencesFrom(recurrenceId: string, range: { from: string; to?: string }): Promise<OccurrenceRecord[]>;
}
