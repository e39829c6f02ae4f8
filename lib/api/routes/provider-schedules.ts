import { ProviderScheduleKind, type ProviderScheduleView } from '../../provider-schedules/index.js';
import { clipText, FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import { parseQuery } from '../request.js';
import { PROVIDER_SCHEDULE_PAGE_MAX, ProviderScheduleViewSchema } from '../responses/schedules.js';
import { type Answers, type Route, type RouteRequest, reply, route } from '../router.js';
import { queryInt } from '../schemas.js';

export const ProviderScheduleQuerySchema = z.lazy(() =>
  z.strictObject({
    /** `true`: only entries that still move money (not cancelled, date ahead). */
    upcoming: z.optional(z.enum(['true', 'false'])),
    /** 1 to 500, default 100. */
    limit: z.optional(
      queryInt(
        1,
        PROVIDER_SCHEDULE_PAGE_MAX,
        `schedules per answer, 1 to ${PROVIDER_SCHEDULE_PAGE_MAX}, default 100`,
      ),
    ),
  }),
);

/** A copy of a provider schedule as answered: every text the provider wrote clipped to 100 characters. */
const present = (entry: ProviderScheduleView) =>
  Object.fromEntries(
    Object.entries(entry).map(([key, value]) => [
      key,
      typeof value === 'string' ? clipText(value, FIELD_MAXIMA.name) : value,
    ]),
  ) as unknown as ProviderScheduleView;

/**
 * The provider's own scheduled and recurrent payouts, from the read view the sync keeps (not a live call),
 * each flagged `alsoScheduledHere` when the same bank account also has a schedule on our side.
 */
function viewOf(kind: ProviderScheduleKind) {
  return async (request: RouteRequest<'providerSchedules'>) => {
    const query = parseQuery(request.event, ProviderScheduleQuerySchema);
    const { items, sync } = await request.ctx.providerSchedules.view(kind, query.limit ?? 100);
    const shown = query.upcoming === 'true' ? items.filter((item) => item.upcoming) : items;
    return reply(200, {
      items: shown.slice(0, PROVIDER_SCHEDULE_PAGE_MAX).map(present),
      bothSides: shown.filter((item) => item.alsoScheduledHere).length,
      ...(sync && { sync }),
    });
  };
}

const view = (kind: ProviderScheduleKind) => ({
  responses: {
    200: {
      description: `the provider's own ${kind} payouts, as last synchronised`,
      schema: ProviderScheduleViewSchema,
    },
  },
  problems: ['validation'] as const,
  handler: viewOf(kind),
});

export const providerScheduleRoutes: readonly Route<Answers, 'providerSchedules'>[] = [
  route({
    method: 'GET',
    path: '/provider/scheduled-payouts',
    operationId: 'provider-scheduled-payouts',
    summary: "The provider's own scheduled payouts, as last synchronised",
    request: { query: ProviderScheduleQuerySchema },
    cli: { words: ['provider', 'scheduled'], summary: 'the provider’s scheduled payouts (synced view)' },
    role: 'viewer',
    ...view(ProviderScheduleKind.Scheduled),
  }),
  route({
    method: 'GET',
    path: '/provider/recurrent-payouts',
    operationId: 'provider-recurrent-payouts',
    summary: "The provider's own recurrent payouts, as last synchronised",
    request: { query: ProviderScheduleQuerySchema },
    cli: { words: ['provider', 'recurrent'], summary: 'the provider’s recurrent payouts (synced view)' },
    role: 'viewer',
    ...view(ProviderScheduleKind.Recurrent),
  }),
];
