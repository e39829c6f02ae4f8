import { PAYOUT_STATUSES, PAYOUT_TYPES, type PayoutStatus, type PayoutType } from '../payouts/model.js';
import { clientText } from '../shared/text.js';
import * as z from '../shared/zod.js';

/**
 * Schemas of the ops API's own inputs (query strings and small command bodies). The payout and refund bodies
 * live with their modules. The OpenAPI document is generated from these same schemas.
 */

/** A decimal integer in a query string, with bounds. */
export const queryInt = (min: number, max: number, description: string) =>
  z
    .pipe(
      z.string().check(z.regex(/^\d{1,6}$/, 'must be an integer')),
      z.pipe(
        z.transform((text: string) => Number(text)),
        z.int().check(z.gte(min, `must be at least ${min}`), z.lte(max, `must be at most ${max}`)),
      ),
    )
    .check(z.describe(description));

const statusValues = PAYOUT_STATUSES as [PayoutStatus, ...PayoutStatus[]];
const typeValues = PAYOUT_TYPES as [PayoutType, ...PayoutType[]];

// Built on first use (z.lazy): a function loads the schemas of every route it serves and of the OpenAPI
// document, and a cold start parses with one or two of them (issue 18).

const PAGE_LIMIT_DESCRIPTION = 'page size, 1 to 100, default 20';

/** `limit` of a cursor-paginated listing: 1 to 100, default 20. */
export const PageLimitSchema = z.lazy(() => queryInt(1, 100, PAGE_LIMIT_DESCRIPTION));

/** `cursor` of a cursor-paginated listing. Opaque: the `nextCursor` of the previous page. */
export const PageCursorSchema = z.lazy(() =>
  z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(2048),
      z.describe(
        'opaque: the nextCursor of the previous page of the same listing (same filters); anything else is a 400 naming cursor',
      ),
    ),
);

/**
 * The query of a read that goes page by page and takes nothing else (a payout's audit trail, a recurrence's
 * history, correction jobs and their rows): a page size of 1 to 100, described by `limitDescription` (by default
 * as `PageLimitSchema`'s), and the cursor.
 */
export function pageOnlyQuery(limitDescription = PAGE_LIMIT_DESCRIPTION) {
  return z.lazy(() =>
    z.strictObject({
      limit: z.optional(queryInt(1, 100, limitDescription)),
      cursor: z.optional(PageCursorSchema),
    }),
  );
}

export const ListPayoutsQuerySchema = z.lazy(() =>
  z.strictObject({
    status: z.optional(z.enum(statusValues)),
    type: z.optional(z.enum(typeValues)),
    /** Inclusive lower bound on `createdAt`. */
    from: z.optional(
      z.iso.datetime({ offset: true }).check(z.describe('inclusive lower bound on createdAt')),
    ),
    /** Inclusive upper bound on `createdAt`. */
    to: z.optional(z.iso.datetime({ offset: true }).check(z.describe('inclusive upper bound on createdAt'))),
    limit: z.optional(PageLimitSchema),
    cursor: z.optional(PageCursorSchema),
  }),
);
export type ListPayoutsQuery = z.infer<typeof ListPayoutsQuerySchema>;

/** `GET /instant-settlements`: decisions and open deferrals, newest first. */
export const ListSettlementsQuerySchema = z.lazy(() =>
  z.strictObject({
    /** Only decisions of this kind, or only settlements deferred and not yet decided. */
    state: z.optional(z.enum(['paid', 'skipped', 'deferred'])),
    limit: z.optional(PageLimitSchema),
    cursor: z.optional(PageCursorSchema),
  }),
);

export const ProviderPageQuerySchema = z.lazy(() =>
  z.strictObject({
    page: z.optional(queryInt(1, 100_000, '1-based page, default 1')),
    perPage: z.optional(queryInt(1, 100, 'records per page, 1 to 100, default 20')),
  }),
);

/** Path parameter `{id}` of payouts and refunds (ULIDs; anything else cannot exist). */
export const ResourceIdSchema = z.lazy(() =>
  z.string().check(z.regex(/^[0-9A-Za-z]{1,64}$/, 'must be an id of letters and digits')),
);

const reason = z.lazy(() => clientText({ max: 200 }));

export const PauseRequestSchema = z.lazy(() => z.strictObject({ reason }));
export const ResumeRequestSchema = z.lazy(() => z.strictObject({ reason: z.optional(reason) }));
export const CancelRequestSchema = z.lazy(() => z.strictObject({ reason: z.optional(reason) }));
export const ApproveRequestSchema = z.lazy(() => z.strictObject({}));

/**
 * A person's decision on a payout in `needs_review` or `unknown`: every one takes two people, the second sending
 * the same decision (docs/payout-engine.md, "Resolving a payout").
 */
export const ResolveReviewRequestSchema = z.lazy(() =>
  z.discriminatedUnion('outcome', [
    z.strictObject({
      outcome: z.literal('succeeded'),
      /** The provider's transaction id that proves the money moved. */
      transactionId: providerReference(),
      note: clientText({ max: 500 }),
      /** Resolve as paid although the record does not prove it; the confirmer sends `force` too. */
      force: z.optional(z.boolean()),
    }),
    z.strictObject({
      outcome: z.literal('failed'),
      note: clientText({ max: 500 }),
      /** Resolve as not paid although an attempt has a provider record; the confirmer sends `force` too. */
      force: z.optional(z.boolean()),
    }),
    z.strictObject({
      outcome: z.literal('paid_twice_recovered'),
      /** How the extra money was recovered: the bank's recall, refund or reversal reference. */
      recoveryReference: clientText({ max: 100 }),
      note: clientText({ max: 500 }),
      /** Which of the records paid twice is the payout's payment; by default its receipt, or its first attempt's. */
      transactionId: z.optional(providerReference()),
    }),
  ]),
);

function providerReference() {
  return z.string().check(z.trim(), z.minLength(1), z.maxLength(100));
}
