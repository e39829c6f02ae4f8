import {
  FUTURE_PAGE_MAX,
  type FutureMovement,
  FutureSource,
  futureMoneyMovement,
} from '../../future-payouts/index.js';
import { encodeCursor, readCursor } from '../../shared/cursor.js';
import { clipText, FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import { parseQuery } from '../request.js';
import { FutureMovementViewSchema } from '../responses/schedules.js';
import { type Answers, type Route, type RouteRequest, reply, route } from '../router.js';
import { PageCursorSchema, queryInt } from '../schemas.js';

export const FuturePayoutsQuerySchema = z.lazy(() =>
  z.strictObject({
    /** How many days ahead, 1 to 366 (default 30). */
    days: z.optional(queryInt(1, 366, 'how many days ahead, 1 to 366, default 30')),
    /** Movements per answer, 1 to 500 (default 500). */
    limit: z.optional(
      queryInt(
        1,
        FUTURE_PAGE_MAX,
        `movements per answer, 1 to ${FUTURE_PAGE_MAX}, default ${FUTURE_PAGE_MAX}`,
      ),
    ),
    cursor: z.optional(PageCursorSchema),
  }),
);

const FuturePositionSchema = z.lazy(() =>
  z.strictObject({
    at: z.string().check(z.maxLength(64)),
    source: z.enum(Object.values(FutureSource) as [FutureSource, ...FutureSource[]]),
    id: z.string().check(z.maxLength(FIELD_MAXIMA.id)),
    detail: z.string().check(z.maxLength(FIELD_MAXIMA.word)),
  }),
);

const { id: ID, word: WORD, name: NAME } = FIELD_MAXIMA;

/** A movement within the answer's maxima: provider texts (ids, narrations, names, intervals) are clipped. */
const presentMovement = (m: FutureMovement) => ({
  ...m,
  id: clipText(m.id, ID),
  ...(m.type !== undefined && { type: clipText(m.type, WORD) }),
  narration: m.narration === null ? null : clipText(m.narration, NAME),
  beneficiary: m.beneficiary && {
    bankCode: clipText(m.beneficiary.bankCode, WORD),
    accountNumber: clipText(m.beneficiary.accountNumber, WORD),
    accountName: clipText(m.beneficiary.accountName, NAME),
  },
  ...(m.detail !== undefined && { detail: clipText(m.detail, WORD) }),
});

/**
 * GET /future-payouts: every planned money movement on both sides, earliest first, double-planned accounts
 * flagged; at most `limit` (500) an answer, the rest by `nextCursor`.
 */
async function listFuturePayouts(
  request: RouteRequest<'payouts' | 'payoutListing' | 'recurrences' | 'providerSchedules'>,
) {
  const query = parseQuery(request.event, FuturePayoutsQuerySchema);
  const after = readCursor(query.cursor, FuturePositionSchema);
  const { payouts, payoutListing, recurrences, providerSchedules } = request.ctx;
  const { next, items, ...view } = await futureMoneyMovement(
    { ledger: payouts, payouts: payoutListing, recurrences, providerSchedules },
    {
      days: query.days ?? 30,
      ...(query.limit !== undefined && { limit: query.limit }),
      ...(after && { after }),
    },
  );
  return reply(200, {
    ...view,
    items: items.map(presentMovement),
    ...(next && { nextCursor: encodeCursor(next) }),
  });
}

export const futurePayoutRoutes: readonly Route<
  Answers,
  'payouts' | 'payoutListing' | 'recurrences' | 'providerSchedules'
>[] = [
  route({
    method: 'GET',
    path: '/future-payouts',
    operationId: 'listFuturePayouts',
    summary:
      'All planned money movement, earliest first: our scheduled payouts and recurring occurrences, and the provider’s own schedules; `bothSides` flags a bank account paid on both; `awaitsApproval` flags money that moves only once a second person approves (a recurring payout in `pending_approval`, or one of ours at or above the approval threshold that nobody approved yet)',
    request: { query: FuturePayoutsQuerySchema },
    cli: {
      words: ['future', 'list'],
      summary:
        'money due in the next --days (1 to 366), ours and the provider’s; 500 an answer, --all for every page',
      list: true,
      query: ['days', 'limit'],
    },
    role: 'viewer',
    responses: {
      200: {
        description: `the movements in the window, earliest first, at most ${FUTURE_PAGE_MAX} an answer`,
        schema: FutureMovementViewSchema,
      },
    },
    problems: ['validation'],
    handler: listFuturePayouts,
  }),
];
