import type { OccurrenceRecord, Recurrence, RecurrenceAuditEvent, RecurrenceStatus } from '../model.js';

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
  /** Writes `after` only if the stored item is still at `before.version`, with its audit event when given. */
  replace(before: Recurrence, after: Recurrence, audit?: RecurrenceAuditEvent): Promise<Recurrence>;
  /** The audit trail of one recurrence, oldest first. */
  audit(id: string): Promise<RecurrenceAuditEvent[]>;
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
   * Marks a materialised occurrence `held` after a pause cancelled its payout; only while the record still
   * names that payout and is `materialised`. False when it changed meanwhile.
   */
  holdOccurrence(recurrenceId: string, localDate: string, payoutId: string, reason: string): Promise<boolean>;
  /** Records a skip (named skip, passed over while paused or before approval, cancelled). */
  recordSkipped(record: OccurrenceRecord): Promise<void>;
  getOccurrence(recurrenceId: string, localDate: string): Promise<OccurrenceRecord | undefined>;
  /** Occurrence history, newest first; with `before` (a local date), only the occurrences before it. */
  occurrences(recurrenceId: string, limit: number, before?: string): Promise<OccurrenceRecord[]>;
}
