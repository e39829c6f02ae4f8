import { PAYOUT_STATUSES, PAYOUT_TYPES, type PayoutStatus, type PayoutType } from '../payouts/index.js';
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

/** The longest `from`..`to` a listing accepts, in days (docs/api.md, "Date parameters"). */
export const MAX_RANGE_DAYS = 400;
const DAY_MS = 86_400_000;
/** The instants a date parameter may name (UTC): the years 2000 to 2999, as a recurrence's dates. */
const INSTANT_RANGE = { first: Date.UTC(2000, 0, 1), last: Date.UTC(3000, 0, 1) - 1 } as const;

/**
 * A date-time in a query string: ISO 8601 with seconds and `Z` or a `±HH:MM` offset, answered as the same
 * instant in UTC in the form the table stores (`2026-01-05T10:00:00.000Z`), so a bound compares with the stored
 * `createdAt` as an instant, never as the text the client wrote. The table holds milliseconds: finer digits are
 * dropped (both bounds alike, so a `from` never passes its `to` by rounding).
 */
export function queryInstant(description: string) {
  return z.pipe(
    z.iso.datetime({ offset: true }).check(z.describe(description)),
    z.pipe(
      z.transform((text: string) => Date.parse(text)),
      z.pipe(
        z
          .number()
          .check(
            z.refine(
              (ms) => ms >= INSTANT_RANGE.first && ms <= INSTANT_RANGE.last,
              'must be an instant from 2000-01-01T00:00:00Z to 2999-12-31T23:59:59.999Z',
            ),
          ),
        z.transform((ms: number) => new Date(ms).toISOString()),
      ),
    ),
  );
}

/** The date parameters of a listing, as `queryInstant` answers them. */
export interface DateRange {
  readonly from?: string;
  readonly to?: string;
}

/** The answer to a range whose `from` comes after its `to`, for every ranged query: both ends named. */
export function addReversedRangeIssues(
  ctx: z.core.$RefinementCtx,
  range: { readonly from?: string; readonly to?: string },
): void {
  ctx.addIssue({ code: 'custom', path: ['from'], message: 'must not be after to', input: range.from });
  ctx.addIssue({ code: 'custom', path: ['to'], message: 'must not be before from', input: range.to });
}

/**
 * A listing's query with a date range: `from` and `to` as `queryInstant`s, `from` not after `to`, and at most
 * `MAX_RANGE_DAYS` between them, a 400 naming the field otherwise. One end given alone is measured against the
 * other's default: `to` defaults to now (for the bound only: the listing stays open-ended, as before), `from` to
 * `MAX_RANGE_DAYS` before `to` (the listing starts there). Without either, nothing is bounded here: the listing
 * keeps its own look-back. The same rules for every listing, so the bound is read in one place.
 *
 * @example const query = parseQuery(event, dateRanged(z.strictObject({ from: z.optional(…), to: z.optional(…) })));
 */
export function dateRanged<Q extends DateRange>(
  query: z.ZodMiniType<Q, Record<string, string>>,
  now = Date.now,
) {
  return z.pipe(
    query.check(
      z.superRefine((range, ctx) => {
        const from = range.from === undefined ? undefined : Date.parse(range.from);
        const to = range.to === undefined ? undefined : Date.parse(range.to);
        if (from === undefined) return;
        if (to !== undefined && from > to) {
          addReversedRangeIssues(ctx, range);
          return;
        }
        if ((to ?? now()) - from > MAX_RANGE_DAYS * DAY_MS) {
          ctx.addIssue({
            code: 'custom',
            path: ['from'],
            message: `must be at most ${MAX_RANGE_DAYS} days before to (now when to is not given)`,
            input: range.from,
          });
        }
      }),
    ),
    z.transform((range: Q): Q => {
      if (range.from !== undefined || range.to === undefined) return range;
      return { ...range, from: new Date(Date.parse(range.to) - MAX_RANGE_DAYS * DAY_MS).toISOString() };
    }),
  );
}

export const ListPayoutsQuerySchema = z.lazy(() =>
  dateRanged(
    z.strictObject({
      status: z.optional(z.enum(statusValues)),
      type: z.optional(z.enum(typeValues)),
      /** Inclusive lower bound on `createdAt`. */
      from: z.optional(
        queryInstant(
          `inclusive lower bound on createdAt, compared as a UTC instant; at most ${MAX_RANGE_DAYS} days before to (now when to is not given)`,
        ),
      ),
      /** Inclusive upper bound on `createdAt`. */
      to: z.optional(
        queryInstant(
          `inclusive upper bound on createdAt, compared as a UTC instant; without from, the listing starts ${MAX_RANGE_DAYS} days before it`,
        ),
      ),
      limit: z.optional(PageLimitSchema),
      cursor: z.optional(PageCursorSchema),
    }),
  ),
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
/** A second person's refusal of an instruction waiting for approval: why, for the requester and the audit. */
export const RejectRequestSchema = z.lazy(() => z.strictObject({ reason }));

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
