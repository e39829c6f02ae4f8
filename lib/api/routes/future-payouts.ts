import { futureMoneyMovement } from '../../future-payouts/future-payouts.js';
import * as z from '../../shared/zod.js';
import { parseQuery } from '../request.js';
import { FutureMovementViewSchema } from '../responses/schedules.js';
import { type Route, type RouteRequest, reply, route } from '../router.js';

export const FuturePayoutsQuerySchema = z.strictObject({
  /** How many days ahead, 1 to 366 (default 30). */
  days: z.optional(
    z.pipe(
      z.string().check(z.regex(/^\d{1,3}$/, 'must be an integer')),
      z.pipe(
        z.transform((text: string) => Number(text)),
        z.int().check(z.gte(1, 'must be at least 1'), z.lte(366, 'must be at most 366')),
      ),
    ),
  ),
});

/** GET /future-payouts: every planned money movement on both sides, earliest first, double-planned accounts flagged. */
async function listFuturePayouts(request: RouteRequest) {
  const query = parseQuery(request.event, FuturePayoutsQuerySchema);
  const { engine, recurrences, providerSchedules } = request.ctx;
  const view = await futureMoneyMovement(
    { engine, recurrences, providerSchedules },
    { days: query.days ?? 30 },
  );
  return reply(200, view);
}

export const futurePayoutRoutes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/future-payouts',
    responses: {
      200: { description: 'the movements in the window, earliest first', schema: FutureMovementViewSchema },
    },
    problems: ['validation'],
    handler: listFuturePayouts,
  }),
];
