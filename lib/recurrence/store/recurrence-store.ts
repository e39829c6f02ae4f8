import type { OccurrenceRecord, Recurrence, RecurrenceAuditEvent, RecurrenceStatus } from '../model.js';

export type CreateRecurrenceOutcome =
  | { readonly created: true; readonly recurrence: Recurrence }
  | { readonly created: false; readonly existing: Recurrence };

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
  /** Records an occurrence's payout; a skip recorded before wins (the state is set only when absent). */
  recordMaterialised(record: OccurrenceRecord): Promise<OccurrenceRecord>;
  /** Records a skip (named skip, or passed over while paused). */
  recordSkipped(record: OccurrenceRecord): Promise<void>;
  getOccurrence(recurrenceId: string, localDate: string): Promise<OccurrenceRecord | undefined>;
  /** Occurrence history, newest first. */
  occurrences(recurrenceId: string, limit: number): Promise<OccurrenceRecord[]>;
}
