import { CreatePayoutRequestSchema } from '../../payouts/index.js';
import {
  storedPrincipal as principalSchema,
  storedApproval,
  storedRejection,
} from '../../shared/stored-principal.js';
import * as z from '../../shared/zod.js';
import { TableIndexes } from '../../table/index.js';
import {
  type CommandAuditEvent,
  type OccurrenceRecord,
  OccurrenceState,
  RECURRENCE_ACTIONS,
  RECURRENCE_STATUSES,
  type Recurrence,
  type RecurrenceAuditEvent,
  RecurrenceStatus,
  type RecurrenceTrailEvent,
} from '../model.js';
import { recurrenceKeys } from './table-keys.js';

// The schemas below are built on first use (z.lazy), not when a function loads this module: a cold start that never
// reads these items does not pay for them (docs/cold-start.md).

/** Items read back are a boundary too: parsed, so a hand-edited item fails loudly, naming the attribute. */

const ruleSchema = z.lazy(() =>
  z.object({
    interval: z.enum(['daily', 'weekly', 'monthly']),
    every: z.int(),
    startDate: z.string(),
    endDate: z.optional(z.string()),
    maxOccurrences: z.optional(z.int()),
    timeOfDay: z.string(),
    timeZone: z.string(),
  }),
);

const RecurrenceItemSchema = z.lazy(() =>
  z.object({
    id: z.string(),
    status: z.enum(RECURRENCE_STATUSES as [RecurrenceStatus, ...RecurrenceStatus[]]),
    rule: ruleSchema,
    template: CreatePayoutRequestSchema,
    idempotencyKey: z.string(),
    requestFingerprint: z.string(),
    nextIndex: z.int(),
    nextOccurrenceAt: z.optional(z.string()),
    nextLocalDate: z.optional(z.string()),
    skippedDates: z.array(z.string()),
    version: z.int(),
    createdBy: principalSchema,
    approvedBy: z.optional(principalSchema),
    firstApproval: z.optional(storedApproval),
    rejection: z.optional(storedRejection),
    statusReason: z.optional(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);

const OccurrenceItemSchema = z.lazy(() =>
  z.object({
    recurrenceId: z.string(),
    localDate: z.string(),
    index: z.int(),
    at: z.string(),
    state: z.enum([OccurrenceState.Materialised, OccurrenceState.Skipped, OccurrenceState.Held]),
    payoutId: z.optional(z.string()),
    generation: z.optional(z.int().check(z.gte(1))),
    reason: z.optional(z.string()),
    recordedAt: z.string(),
  }),
);

const { byStatus, byMonth: all, workQueue } = TableIndexes;

export function toRecurrenceItem(recurrence: Recurrence): Record<string, unknown> {
  const listKey = `${recurrence.createdAt}#${recurrence.id}`;
  const queued = recurrence.status === RecurrenceStatus.Active && recurrence.nextOccurrenceAt !== undefined;
  return {
    ...recurrenceKeys.recurrence(recurrence.id),
    entity: 'recurrence',
    ...recurrence,
    skippedDates: [...recurrence.skippedDates],
    [byStatus.partitionKey]: recurrenceKeys.statusPartition(recurrence.status),
    [byStatus.sortKey]: listKey,
    [all.partitionKey]: recurrenceKeys.allPartition,
    [all.sortKey]: listKey,
    ...(queued && {
      [workQueue.partitionKey]: recurrenceKeys.workPartition,
      [workQueue.sortKey]: `${recurrence.nextOccurrenceAt}#${recurrence.id}`,
    }),
  };
}

export function fromRecurrenceItem(item: Record<string, unknown>): Recurrence {
  const parsed = RecurrenceItemSchema.parse(item);
  const { endDate, maxOccurrences, ...rule } = parsed.rule;
  const { nextOccurrenceAt, nextLocalDate, statusReason, approvedBy, firstApproval, rejection, ...rest } =
    parsed;
  return {
    ...rest,
    rule: {
      ...rule,
      ...(endDate !== undefined && { endDate }),
      ...(maxOccurrences !== undefined && { maxOccurrences }),
    },
    ...(nextOccurrenceAt !== undefined && { nextOccurrenceAt }),
    ...(nextLocalDate !== undefined && { nextLocalDate }),
    ...(statusReason !== undefined && { statusReason }),
    ...(approvedBy !== undefined && { approvedBy }),
    ...(firstApproval !== undefined && { firstApproval }),
    ...(rejection !== undefined && { rejection }),
  };
}

export function fromOccurrenceItem(item: Record<string, unknown>): OccurrenceRecord {
  const { payoutId, reason, generation, ...rest } = OccurrenceItemSchema.parse(item);
  return {
    ...rest,
    ...(payoutId !== undefined && { payoutId }),
    ...(reason !== undefined && { reason }),
    ...(generation !== undefined && { generation }),
  };
}

const AuditItemSchema = z.lazy(() =>
  z.object({
    recurrenceId: z.string(),
    sequence: z.int(),
    at: z.string(),
    actor: principalSchema,
    action: z.enum(RECURRENCE_ACTIONS),
    reason: z.string(),
  }),
);

/** A command's event keeps its `commandId` (CommandAuditEvent) on the item: it supersedes a provisional event. */
export function toAuditItem(event: RecurrenceAuditEvent | CommandAuditEvent): Record<string, unknown> {
  return { ...recurrenceKeys.audit(event.recurrenceId, event.sequence), entity: 'recurrenceAudit', ...event };
}

export function fromAuditItem(item: Record<string, unknown>): RecurrenceAuditEvent {
  return AuditItemSchema.parse(item);
}

/** A command's provisional audit event (model.ts, CommandAuditEvent): a key of its own, marked `provisional`. */
export function toProvisionalAuditItem(event: CommandAuditEvent): Record<string, unknown> {
  return {
    ...recurrenceKeys.provisionalAudit(event.recurrenceId, event.sequence, event.commandId),
    entity: 'recurrenceAudit',
    ...event,
    provisional: true,
  };
}

/**
 * The trail as it is shown, in key order: every command's own event, and a command's provisional event only while
 * no event of its own (the same `commandId`) supersedes it, so only for a command that never committed; that one
 * is shown `committed: false` (model.ts, RecurrenceTrailEvent), every other `committed: true`. Neither `commandId`
 * nor `provisional` is shown (fromAuditItem keeps the event's fields).
 */
export function shownAuditEvents(items: readonly Record<string, unknown>[]): RecurrenceTrailEvent[] {
  const committed = new Set(
    items
      .filter((item) => item.provisional !== true && item.commandId !== undefined)
      .map((item) => item.commandId),
  );
  return items
    .filter((item) => item.provisional !== true || !committed.has(item.commandId))
    .map((item) => ({ ...fromAuditItem(item), committed: item.provisional !== true }));
}
