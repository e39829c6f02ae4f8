import type { ProviderScheduleEntry, ProviderScheduleKind, SyncCursor, SyncStatus } from './model.js';

/**
 * The read view of the provider's schedules, as the sync and the view use it: the port of the table's store
 * (store/dynamodb-schedule-store.ts) and of the in-memory one the service's unit tests use.
 */
export interface ProviderScheduleRecords {
  /** Upserts entries by kind and id; `signal` abandons the rest (what was written stays written). */
  putAll(entries: readonly ProviderScheduleEntry[], options?: { signal?: AbortSignal }): Promise<void>;
  /** Entries of one kind, latest start first, at most `limit`. */
  list(kind: ProviderScheduleKind, limit: number): Promise<ProviderScheduleEntry[]>;
  setSyncStatus(status: SyncStatus): Promise<void>;
  getSyncStatus(): Promise<SyncStatus | undefined>;
  /** Where an unfinished sync resumes; undefined when the last one finished. */
  getCursor(): Promise<SyncCursor | undefined>;
  /** Records where the sync resumes (`undefined`: it finished). */
  setCursor(cursor: SyncCursor | undefined): Promise<void>;
}
