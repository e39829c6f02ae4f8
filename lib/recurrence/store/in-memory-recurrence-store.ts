import { ConcurrentModificationError } from '../../shared/errors.js';
import { newestFirst, pageOf } from '../../shared/in-memory-pages.js';
import {
  type CommandAuditEvent,
  type OccurrenceRecord,
  OccurrenceState,
  type Recurrence,
  type RecurrenceAuditEvent,
  RecurrenceStatus,
  type RecurrenceTrailEvent,
} from '../model.js';
import type {
  CreateRecurrenceOutcome,
  RecordMaterialisedOutcome,
  RecurrencePage,
  RecurrenceStore,
} from './recurrence-store.js';

/** An audit event as kept: its key's sort (`AUDIT#<sequence>[#<commandId>]`), and whether it is provisional. */
interface KeptEvent {
  readonly sortKey: string;
  readonly event: RecurrenceAuditEvent | CommandAuditEvent;
  readonly provisional: boolean;
}

/**
 * Recurring payouts in memory, with the table store's rules (`DynamoDbRecurrenceStore`): an idempotency key holds one
 * recurrence; a recurrence is replaced only at the version it was read, with an audit event of a new sequence; an
 * occurrence record changes only over the state its writer read (a hold over the payout it names, a skip over the
 * record the caller read, a payout's record only over nothing, a held one of an older generation, or itself), each
 * with a command's provisional audit event when given; the trail shows a provisional event only until its command's
 * own event supersedes it. For unit tests of the commands and reads of RecurrenceService; the table's own suites test
 * the store (test/recurrence/).
 *
 * A payout's creation commits its occurrence's record in the payout's own transaction (`materialisation`, a
 * CreationCompanion of the table's items), which memory cannot join: `materialisation` throws, and the sweep is tested
 * against DynamoDB Local (test/recurrence/sweep.test.ts).
 */
export class InMemoryRecurrenceStore implements RecurrenceStore {
  readonly #recurrences = new Map<string, Recurrence>();
  readonly #keys = new Map<string, string>();
  readonly #audit = new Map<string, KeptEvent[]>();
  readonly #occurrences = new Map<string, Map<string, OccurrenceRecord>>();

  async create(recurrence: Recurrence, audit: RecurrenceAuditEvent): Promise<CreateRecurrenceOutcome> {
    const owner = this.#keys.get(recurrence.idempotencyKey);
    if (owner !== undefined) {
      const existing = this.#recurrences.get(owner);
      if (!existing) throw new ConcurrentModificationError('recurring payout', recurrence.id);
      return { created: false, existing: structuredClone(existing) };
    }
    this.#keys.set(recurrence.idempotencyKey, recurrence.id);
    this.#recurrences.set(recurrence.id, structuredClone(recurrence));
    this.#keep(audit, false);
    return { created: true, recurrence };
  }

  async get(id: string): Promise<Recurrence | undefined> {
    const recurrence = this.#recurrences.get(id);
    return recurrence && structuredClone(recurrence);
  }

  async replace(
    before: Recurrence,
    after: Recurrence,
    audit?: RecurrenceAuditEvent | CommandAuditEvent,
  ): Promise<Recurrence> {
    const current = this.#recurrences.get(before.id);
    const taken =
      audit !== undefined &&
      (this.#audit.get(before.id) ?? []).some(({ sortKey }) => sortKey === keyOf(audit));
    if (current?.version !== before.version || taken) {
      throw new ConcurrentModificationError('recurring payout', before.id);
    }
    this.#recurrences.set(after.id, structuredClone(after));
    if (audit) this.#keep(audit, false);
    return after;
  }

  async audit(id: string): Promise<RecurrenceTrailEvent[]> {
    const kept = [...(this.#audit.get(id) ?? [])].sort((a, b) => (a.sortKey < b.sortKey ? -1 : 1));
    const committed = new Set(
      kept.flatMap(({ event, provisional }) =>
        !provisional && 'commandId' in event ? [event.commandId] : [],
      ),
    );
    return kept
      .filter(
        ({ event, provisional }) => !provisional || !('commandId' in event && committed.has(event.commandId)),
      )
      .map(({ event, provisional }) => ({ ...shownEvent(event), committed: !provisional }));
  }

  async list(query: { status?: RecurrenceStatus; limit: number; cursor?: string }): Promise<RecurrencePage> {
    const matching = [...this.#recurrences.values()].filter(
      (recurrence) => query.status === undefined || recurrence.status === query.status,
    );
    const ordered = newestFirst(
      matching,
      (recurrence) => recurrence.createdAt,
      (recurrence) => recurrence.id,
    );
    return structuredClone(pageOf(ordered, query));
  }

  async due(dueBy: string, limit: number): Promise<{ items: Recurrence[]; read: number }> {
    const queued = [...this.#recurrences.values()].flatMap((recurrence) =>
      recurrence.status === RecurrenceStatus.Active && recurrence.nextOccurrenceAt !== undefined
        ? [{ key: `${recurrence.nextOccurrenceAt}#${recurrence.id}`, recurrence }]
        : [],
    );
    const items = queued
      .filter(({ key }) => key <= `${dueBy}#\uffff`)
      .sort((a, b) => (a.key < b.key ? -1 : 1))
      .slice(0, limit)
      .map(({ recurrence }) => structuredClone(recurrence));
    return { items, read: items.length };
  }

  async recordMaterialised(record: OccurrenceRecord): Promise<RecordMaterialisedOutcome> {
    const current = this.#occurrence(record.recurrenceId, record.localDate);
    const generation = record.generation ?? 1;
    const writable =
      current === undefined ||
      (current.state === OccurrenceState.Held && (current.generation ?? 0) < generation) ||
      (current.state === OccurrenceState.Materialised && current.payoutId === record.payoutId);
    if (!writable) return { recorded: false, current: structuredClone(current) };
    const { reason: _removed, ...kept } = current ?? record;
    const written: OccurrenceRecord = {
      ...kept,
      recurrenceId: record.recurrenceId,
      localDate: record.localDate,
      index: record.index,
      at: record.at,
      ...(record.payoutId !== undefined && { payoutId: record.payoutId }),
      generation,
      state: OccurrenceState.Materialised,
      recordedAt: record.recordedAt,
    };
    this.#setOccurrence(written);
    return { recorded: true, record: structuredClone(written) };
  }

  materialisation(record: OccurrenceRecord): never {
    throw new Error(
      `the in-memory record of ${record.recurrenceId} on ${record.localDate} cannot commit in a payout's creation`,
    );
  }

  async holdOccurrence(
    recurrenceId: string,
    localDate: string,
    payoutId: string,
    reason: string,
    provisional?: CommandAuditEvent,
  ): Promise<boolean> {
    const current = this.#occurrence(recurrenceId, localDate);
    if (current?.state !== OccurrenceState.Materialised || current.payoutId !== payoutId) return false;
    this.#setOccurrence({ ...current, state: OccurrenceState.Held, reason });
    if (provisional) this.#keep(provisional, true);
    return true;
  }

  async recordSkipped(
    record: OccurrenceRecord,
    expected?: OccurrenceRecord,
    provisional?: CommandAuditEvent,
  ): Promise<boolean> {
    const current = this.#occurrence(record.recurrenceId, record.localDate);
    const asRead = expected
      ? current?.state === expected.state && current.payoutId === expected.payoutId
      : current === undefined;
    if (!asRead) return false;
    this.#setOccurrence({
      ...current,
      recurrenceId: record.recurrenceId,
      localDate: record.localDate,
      index: record.index,
      at: record.at,
      state: record.state,
      reason: record.reason ?? 'skipped',
      recordedAt: record.recordedAt,
      ...(record.payoutId && { payoutId: record.payoutId }),
    });
    if (provisional) this.#keep(provisional, true);
    return true;
  }

  async getOccurrence(recurrenceId: string, localDate: string): Promise<OccurrenceRecord | undefined> {
    const record = this.#occurrence(recurrenceId, localDate);
    return record && structuredClone(record);
  }

  async occurrences(recurrenceId: string, limit: number, before?: string): Promise<OccurrenceRecord[]> {
    return this.#records(recurrenceId)
      .filter((record) => before === undefined || record.localDate < before)
      .reverse()
      .slice(0, limit);
  }

  async occurrencesFrom(
    recurrenceId: string,
    range: { from: string; to?: string },
  ): Promise<OccurrenceRecord[]> {
    return this.#records(recurrenceId).filter(
      (record) => record.localDate >= range.from && (range.to === undefined || record.localDate <= range.to),
    );
  }

  /** The recurrence's records, oldest first (by local date, as the table's keys sort them). */
  #records(recurrenceId: string): OccurrenceRecord[] {
    const records = [...(this.#occurrences.get(recurrenceId)?.values() ?? [])];
    return structuredClone(records.sort((a, b) => (a.localDate < b.localDate ? -1 : 1)));
  }

  #occurrence(recurrenceId: string, localDate: string): OccurrenceRecord | undefined {
    return this.#occurrences.get(recurrenceId)?.get(localDate);
  }

  #setOccurrence(record: OccurrenceRecord): void {
    const records = this.#occurrences.get(record.recurrenceId) ?? new Map<string, OccurrenceRecord>();
    records.set(record.localDate, structuredClone(record));
    this.#occurrences.set(record.recurrenceId, records);
  }

  /** Keeps an event under its key; a provisional one of the same command and sequence is overwritten. */
  #keep(event: RecurrenceAuditEvent | CommandAuditEvent, provisional: boolean): void {
    const sortKey = provisional && 'commandId' in event ? `${keyOf(event)}#${event.commandId}` : keyOf(event);
    const kept = (this.#audit.get(event.recurrenceId) ?? []).filter((entry) => entry.sortKey !== sortKey);
    this.#audit.set(event.recurrenceId, [...kept, { sortKey, event: structuredClone(event), provisional }]);
  }
}

const keyOf = (event: RecurrenceAuditEvent) => `AUDIT#${String(event.sequence).padStart(6, '0')}`;

/** The event as the table's read shows it: its own fields, without the command's id. */
function shownEvent(event: RecurrenceAuditEvent): RecurrenceAuditEvent {
  const { recurrenceId, sequence, at, actor, action, reason } = event;
  return { recurrenceId, sequence, at, actor, action, reason };
}
