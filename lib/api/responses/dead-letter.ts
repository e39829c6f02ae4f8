import { DEAD_LETTER_EVENT_PREVIEW, DEAD_LETTER_STATUSES } from '../../events/index.js';
import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import * as field from './common.js';

/**
 * The largest event a dead letter answers whole, as JSON: 8 times the 256 KB an event can be when Lambda takes it
 * (EventBridge's entry, Lambda's asynchronous payload), the margin for what writing it again can add (`1e20`
 * comes back as 21 digits). A larger one is answered by its size and the start of its JSON (`eventPreview`).
 */
export const DEAD_LETTER_EVENT_MAX_BYTES = 2 * 1024 * 1024;
/** Characters of the event's JSON a listing shows. */
export const DEAD_LETTER_PREVIEW = 200;

/** A listing's start of the event's JSON, on every letter. */
const listedPreview = () =>
  field
    .upTo(DEAD_LETTER_PREVIEW)
    .check(z.describe(`the start of the event's JSON (its first ${DEAD_LETTER_PREVIEW} characters)`));
/** The detail's, only when it cannot answer the event whole. */
const detailPreview = () =>
  field
    .upTo(DEAD_LETTER_EVENT_PREVIEW)
    .check(
      z.describe(
        `the start of the event's JSON when the event is not answered whole: its first ${DEAD_LETTER_PREVIEW} characters when it is larger than ${DEAD_LETTER_EVENT_MAX_BYTES} bytes, or the first ${DEAD_LETTER_EVENT_PREVIEW} the letter kept of an event too large to keep (which cannot be replayed)`,
      ),
    );

/**
 * What a listing and the detail both say of a dead letter: the first `issues` of its error's, and the start of
 * its event as `eventPreview` says.
 */
const letterFields = (issues: number, eventPreview: ReturnType<typeof listedPreview>) => ({
  id: field.idText,
  detailType: z.optional(
    field.wordText.check(z.describe("the event's detail-type: which handler a replay goes to")),
  ),
  error: z.object({
    name: field.wordText,
    code: field.wordText,
    message: field.upTo(FIELD_MAXIMA.message),
    issues: z
      .array(field.FieldIssueSchema)
      .check(z.maxLength(issues), z.describe(`the first ${issues} fields that are wrong`)),
    issuesOmitted: field.omittedCount,
  }),
  at: field.instant,
  status: z.enum(DEAD_LETTER_STATUSES),
  eventBytes: z
    .int()
    .check(
      z.describe('the size of the event as JSON, in bytes (as delivered, when it was too large to keep)'),
    ),
  eventPreview: z.optional(eventPreview),
});

/** A dead letter in a listing: its error and the start of its event (`GET /dead-letters/{id}` has all of it). */
export const DeadLetterSummarySchema = z.lazy(() =>
  z.object(letterFields(FIELD_MAXIMA.rowIssues, listedPreview())),
);

export const DeadLetterResponseSchema = z.lazy(() =>
  z.object({
    ...letterFields(FIELD_MAXIMA.issues, detailPreview()),
    event: z.optional(
      z
        .unknown()
        .check(
          z.describe(`the event as delivered (at most ${DEAD_LETTER_EVENT_MAX_BYTES} bytes as JSON)`),
          z.meta({ maxJsonBytes: DEAD_LETTER_EVENT_MAX_BYTES }),
        ),
    ),
    actions: z
      .array(
        z.object({
          action: z.enum(['replay', 'discard']),
          by: field.PrincipalSchema,
          at: field.instant,
          note: field.sentence.check(z.describe('why it was discarded, or what the replay came to')),
        }),
      )
      .check(z.maxLength(FIELD_MAXIMA.audit), z.describe(`oldest first (the newest ${FIELD_MAXIMA.audit})`)),
    actionsOmitted: field.omittedCount,
  }),
);

export const DeadLetterPageSchema = field.pageOf(DeadLetterSummarySchema);

export const ReplayDeliveredSchema = z.lazy(() =>
  z.object({
    delivered: z.literal(true),
    letter: DeadLetterResponseSchema,
  }),
);
/** `422`: the handler refused the event again; the letter stays open with this replay recorded. */
export const ReplayRefusedSchema = z.lazy(() =>
  z.object({
    delivered: z.literal(false),
    letter: DeadLetterResponseSchema,
  }),
);
