import * as z from '../../shared/zod.js';

// Built on first use (z.lazy): the route table holds these for the OpenAPI document, which a cold start never
// builds; the generated document is the same (test/api/other-routes.test.ts compares it with docs/openapi.json).

/**
 * Building blocks of the ops API's response schemas. The response schemas are the contract: presenters are
 * typed by them, the OpenAPI document is generated from them, and the API tests check every real answer
 * against that document.
 */

/** An instant we wrote (ISO 8601, UTC or with an offset). */
export const instant = z.lazy(() => z.iso.datetime({ offset: true }));

/** A Lagos (or the rule's zone) calendar date, `YYYY-MM-DD`. */
export const calendarDate = z.lazy(() => z.iso.date());

/** Integer kobo. */
export const kobo = z.int().check(z.describe('integer kobo'));

export const PrincipalSchema = z.lazy(() => z.object({ id: z.string(), kind: z.enum(['user', 'system']) }));

/** One field a request got wrong. */
export const FieldIssueSchema = z.lazy(() => z.object({ path: z.string(), message: z.string() }));

/** One page of a cursor-paginated listing, newest first; `nextCursor` is absent on the last page. */
export const pageOf = <T extends z.ZodMiniType>(item: T) =>
  z.object({
    items: z.array(item),
    nextCursor: z.optional(
      z.string().check(z.describe('pass as `cursor` (with the same filters) for the next page')),
    ),
  });

/** `{ code, message }` of a failure. */
export const FailureSchema = z.lazy(() => z.object({ code: z.string(), message: z.string() }));
