import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';

/**
 * Building blocks of the ops API's response schemas (each file of lib/api/responses/ imports them as `field`). The
 * response schemas are the contract: presenters are typed by them, the OpenAPI document is generated from them,
 * and the API tests check every real answer against that document. They are built on first use (z.lazy): the route
 * table holds them for the OpenAPI document, which a cold start never builds; the generated document is the same
 * (test/api/other-routes.test.ts compares it with docs/openapi.json).
 */

/**
 * A string of at most `max` characters, printable (`x-printable`: no control character or lone surrogate, so at
 * most three bytes a character as JSON): what clients write is refused otherwise (lib/shared/text.ts), what the
 * provider or the service wrote is passed through `clipText` (lib/shared/field-limits.ts) by the presenters. Every
 * string answered has a maximum (test/infra/api-answer-sizes.test.ts).
 */
export const upTo = (max: number) => z.string().check(z.maxLength(max), z.meta({ 'x-printable': true }));

/** An id or a reference (ours, the caller's idempotency key, the provider's). */
export const idText = z.lazy(() => upTo(FIELD_MAXIMA.id));
/** A reference the provider gave (a transaction id, a session id). */
export const referenceText = z.lazy(() => upTo(FIELD_MAXIMA.reference));
/** A kind, status or code. */
export const wordText = z.lazy(() => upTo(FIELD_MAXIMA.word));
/** A sentence: a reason, a note, a message. */
export const sentence = z.lazy(() => upTo(FIELD_MAXIMA.text));

/** An instant we wrote (ISO 8601, UTC or with an offset). */
export const instant = z.lazy(() =>
  z.iso.datetime({ offset: true }).check(z.maxLength(FIELD_MAXIMA.instant)),
);

/** A Lagos (or the rule's zone) calendar date, `YYYY-MM-DD`. */
export const calendarDate = z.lazy(() => z.iso.date().check(z.maxLength(10)));

/** Integer kobo. */
export const kobo = z.int().check(z.describe('integer kobo'));

export const PrincipalSchema = z.lazy(() => z.object({ id: idText, kind: z.enum(['user', 'system']) }));

/** A second person's refusal of an instruction waiting for approval (`POST …/reject`). */
export const RejectionSchema = z.lazy(() =>
  z
    .object({ by: PrincipalSchema, reason: sentence, at: instant })
    .check(
      z.describe('a second person refused it while it waited for approval: it is `cancelled`, for good'),
    ),
);

export const FirstApprovalSchema = z.lazy(() =>
  z
    .object({ by: PrincipalSchema, at: instant })
    .check(
      z.describe(
        'the first of two approvals (at or above the second-approval threshold): it waits for a second approver, another person',
      ),
    ),
);

/** One field a request got wrong. */
export const FieldIssueSchema = z.lazy(() => z.object({ path: upTo(FIELD_MAXIMA.name), message: sentence }));

/** One page of a cursor-paginated listing, newest first; `nextCursor` is absent on the last page. */
export const pageOf = <T extends z.ZodMiniType>(item: T) =>
  z.lazy(() =>
    z.object({
      items: z.array(item).check(z.maxLength(FIELD_MAXIMA.page)),
      nextCursor: z.optional(
        upTo(FIELD_MAXIMA.cursor).check(
          z.describe('pass as `cursor` (with the same filters) for the next page'),
        ),
      ),
    }),
  );

/**
 * How many older entries a list inside one record left out (present only when some were): the answer keeps the
 * newest, so an auditor reading it knows the trail goes further back.
 */
export const omittedCount = z.optional(
  z.lazy(() => z.int().check(z.gte(1), z.describe('how many older entries are left out (absent: none)'))),
);

/** `{ code, message }` of a failure. */
export const FailureSchema = z.lazy(() => z.object({ code: wordText, message: upTo(FIELD_MAXIMA.message) }));
