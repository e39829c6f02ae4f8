/**
 * Items of the recurrence module in the project's single table (see lib/table/table-design.ts and
 * docs/data-model.md).
 *
 * | item           | pk                               | sk                       | gsi1 (by status)                                | gsi2 (all)                        | gsi3 (work queue, sparse)                        |
 * |----------------|----------------------------------|--------------------------|-------------------------------------------------|-----------------------------------|--------------------------------------------------|
 * | recurrence     | RECURRENCE#<id>                  | RECURRENCE               | RECURRENCE#STATUS#<status> / <createdAt>#<id>   | RECURRENCE#ALL / <createdAt>#<id> | WORK#recurrence / <nextOccurrenceAt>#<id> (active only) |
 * | audit event    | RECURRENCE#<id>                  | AUDIT#<sequence>         |                                                 |                                   |                                                  |
 * | provisional    | RECURRENCE#<id>                  | AUDIT#<seq>#<commandId>  |                                                 |                                   |                                                  |
 * | occurrence     | RECURRENCE#<id>                  | OCCURRENCE#<localDate>   |                                                 |                                   |                                                  |
 * | idempotency    | IDEMPOTENCY#recurrence#<key>     | IDEMPOTENCY              |                                                 |                                   |                                                  |
 */
export const recurrenceKeys = {
  recurrence: (id: string) => ({ pk: `RECURRENCE#${id}`, sk: 'RECURRENCE' }),
  audit: (id: string, sequence: number) => ({
    pk: `RECURRENCE#${id}`,
    sk: `AUDIT#${String(sequence).padStart(6, '0')}`,
  }),
  /**
   * A command's provisional audit event (model.ts, CommandAuditEvent): after the event that produced the version the
   * command read (`sequence`) and before the next, and never the key of a command's own event.
   */
  provisionalAudit: (id: string, sequence: number, commandId: string) => ({
    pk: `RECURRENCE#${id}`,
    sk: `AUDIT#${String(sequence).padStart(6, '0')}#${commandId}`,
  }),
  occurrence: (id: string, localDate: string) => ({ pk: `RECURRENCE#${id}`, sk: `OCCURRENCE#${localDate}` }),
  idempotency: (key: string) => ({ pk: `IDEMPOTENCY#recurrence#${key}`, sk: 'IDEMPOTENCY' }),
  statusPartition: (status: string) => `RECURRENCE#STATUS#${status}`,
  allPartition: 'RECURRENCE#ALL',
  /** The work-queue partition the sweeper reads, like the engine's `WORK#due`. */
  workPartition: 'WORK#recurrence',
} as const;
