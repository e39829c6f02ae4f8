import { PAYOUT_STATUSES, PAYOUT_TYPES, type PayoutStatus, type PayoutType } from '../../payouts/index.js';
import {
  OccurrenceState,
  RECURRENCE_ACTIONS,
  RECURRENCE_STATUSES,
  RecurrenceInterval,
  type RecurrenceStatus,
} from '../../recurrence/index.js';
import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import * as field from './common.js';
import { instructionFields, MetadataResponseSchema } from './payout.js';

export const RecurrenceRuleResponseSchema = z.lazy(() =>
  z.object({
    interval: z.enum(Object.values(RecurrenceInterval) as [RecurrenceInterval, ...RecurrenceInterval[]]),
    every: z.int(),
    startDate: field.calendarDate,
    endDate: z.optional(field.calendarDate),
    maxOccurrences: z.optional(z.int()),
    timeOfDay: field.wordText.check(z.describe('local wall-clock time HH:MM')),
    timeZone: field.wordText,
  }),
);

/** The fields of a recurring payout's answer, also at the top of its view. */
const recurringPayoutFields = () => ({
  id: field.idText,
  status: z.enum(RECURRENCE_STATUSES as [RecurrenceStatus, ...RecurrenceStatus[]]),
  statusReason: z.optional(field.sentence),
  type: z.enum(PAYOUT_TYPES as [PayoutType, ...PayoutType[]]),
  amount: field.kobo.check(z.describe('integer kobo, per occurrence')),
  currency: z.literal('NGN'),
  narration: field.upTo(FIELD_MAXIMA.name),
  ...instructionFields(),
  metadata: z.optional(MetadataResponseSchema),
  schedule: RecurrenceRuleResponseSchema,
  nextOccurrence: z.optional(z.object({ localDate: z.optional(field.calendarDate), at: field.instant })),
  skippedDates: z
    .array(field.calendarDate)
    .check(z.maxLength(FIELD_MAXIMA.audit), z.describe(`the latest ${FIELD_MAXIMA.audit} dates skipped`)),
  idempotencyKey: field.idText,
  createdBy: field.PrincipalSchema,
  approvedBy: z.optional(field.PrincipalSchema),
  firstApproval: z.optional(field.FirstApprovalSchema),
  rejection: z.optional(field.RejectionSchema),
  createdAt: field.instant,
  updatedAt: field.instant,
});

export const RecurringPayoutResponseSchema = z.lazy(() =>
  z
    .object(recurringPayoutFields())
    .check(
      z.describe(
        'A recurring payout: the payout fields of its `type` at the top level, the rule under `schedule`. ' +
          'At or above the approval threshold it is `pending_approval` until a person other than its creator ' +
          'approves it; its occurrences are then requested by `createdBy` and carry `approvedBy`.',
      ),
    ),
);
export type RecurringPayoutResponse = z.output<typeof RecurringPayoutResponseSchema>;

/** What became of one occurrence (`history` of a recurring payout, and its pages). */
export const RecurrenceHistoryEntrySchema = z.lazy(() =>
  z.object({
    localDate: field.calendarDate,
    at: field.instant,
    state: z
      .enum(Object.values(OccurrenceState) as [OccurrenceState, ...OccurrenceState[]])
      .check(
        z.describe(
          '`held`: a pause cancelled its payout; the resume pays it again (a new payout, `generation` + 1) ' +
            'if its time is after the resume, or records it `skipped` with the reason',
        ),
      ),
    payoutId: z.optional(field.idText),
    generation: z.optional(
      z.int().check(z.describe('present from 2 on: the payout after a pause and resume')),
    ),
    payoutStatus: z.optional(z.enum(PAYOUT_STATUSES as [PayoutStatus, ...PayoutStatus[]])),
    reason: z.optional(field.sentence),
    recordedAt: field.instant,
  }),
);

/** `GET /recurring-payouts/{id}/history`: a page of the whole history, newest first. */
export const RecurrenceHistoryPageSchema = field.pageOf(RecurrenceHistoryEntrySchema);

/** GET, create, approve and skip answer the recurring payout with its coming occurrences, history and audit. */
export const RecurringPayoutViewSchema = z.lazy(() =>
  z.object({
    ...recurringPayoutFields(),
    upcoming: z
      .array(z.object({ localDate: field.calendarDate, at: field.instant, skipped: z.boolean() }))
      .check(z.maxLength(FIELD_MAXIMA.audit)),
    history: z
      .array(RecurrenceHistoryEntrySchema)
      .check(
        z.maxLength(FIELD_MAXIMA.audit),
        z.describe(
          'newest first: what became of each occurrence (the newest 50; older ones from GET /recurring-payouts/{id}/history, with `historyNextCursor`)',
        ),
      ),
    historyNextCursor: z.optional(
      field
        .upTo(FIELD_MAXIMA.cursor)
        .check(
          z.describe(
            'present when the history goes further back: pass as `cursor` to GET /recurring-payouts/{id}/history',
          ),
        ),
    ),
    audit: z
      .array(
        z.object({
          sequence: z.int(),
          at: field.instant,
          actor: field.PrincipalSchema,
          action: z.enum(RECURRENCE_ACTIONS),
          reason: field.sentence,
          committed: z
            .boolean()
            .check(
              z.describe(
                '`false`: the command did not take effect (409 after its retries, or cut off by the deadline; ' +
                  'not yet, while it still runs): the rule is as it was, but the occurrence records it changed ' +
                  '(holds, skips) stay as `history` shows them, and this event names who changed them; its ' +
                  '`sequence` is the version it read. `true`: the command took effect at `sequence`.',
              ),
            ),
        }),
      )
      .check(
        z.maxLength(FIELD_MAXIMA.audit),
        z.describe(
          `every command, oldest first (the newest ${FIELD_MAXIMA.audit}); one that did not take effect has \`committed: false\``,
        ),
      ),
    auditOmitted: field.omittedCount,
  }),
);
export type RecurringPayoutView = z.output<typeof RecurringPayoutViewSchema>;

export const RecurringPayoutPageSchema = field.pageOf(RecurringPayoutResponseSchema);
