import type { ProviderScheduleEntry, ProviderScheduleKind, SyncCursor, SyncStatus } from '../model.js';
import type { ProviderScheduleRecords } from '../records.js';

/** The provider schedules' view in memory, to the port's contract (test/provider-schedules/…contract.test.ts). */
export class InMemoryProviderScheduleStore implements ProviderScheduleRecords {
  readonly #entries = new Map<string, ProviderScheduleEntry>();
  #status: SyncStatus | undefined;
  #cursor: SyncCursor | undefined;

  async putAll(
    entries: readonly ProviderScheduleEntry[],
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    for (const entry of entries) {
      options.signal?.throwIfAborted();
      this.#entries.set(`${entry.kind}#${entry.id}`, entry);
    }
  }

  async list(kind: ProviderScheduleKind, limit: number): Promise<ProviderScheduleEntry[]> {
    const byStartThenId = (entry: ProviderScheduleEntry) => `${entry.startsAt}#${entry.id}`;
    return [...this.#entries.values()]
      .filter((entry) => entry.kind === kind)
      .sort((a, b) => byStartThenId(b).localeCompare(byStartThenId(a)))
      .slice(0, limit);
  }

  async setSyncStatus(status: SyncStatus): Promise<void> {
    this.#status = status;
  }

  async getSyncStatus(): Promise<SyncStatus | undefined> {
    return this.#status;
  }

  async getCursor(): Promise<SyncCursor | undefined> {
    return this.#cursor;
  }

  async setCursor(cursor: SyncCursor | undefined): Promise<void> {
    this.#cursor = cursor;
  }
}
