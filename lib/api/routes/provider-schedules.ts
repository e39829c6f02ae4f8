import { ProviderScheduleKind, type ProviderScheduleView } from '../../provider-schedules/model.js';
import { clipText, FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import { parseQuery } from '../request.js';
import { PROVIDER_SCHEDULE_PAGE_MAX, ProviderScheduleViewSchema } from '../responses/schedules.js';
import { type Route, type RouteRequest, reply, route } from '../router.js';

export const ProviderScheduleQuerySchema = z.strictObject({
  /** `true`: only entries that still move money (not cancelled, date ahead). */
  upcoming: z.optional(z.enum(['true', 'false'])),
  /** 1 to 500, default 100. */
  limit: z.optional(
    z.pipe(
      z.string().check(z.regex(/^\d{1,3}$/, 'must be an integer')),
      z.pipe(
        z.transform((text: string) => Number(text)),
        z
          .int()
          .check(
            z.gte(1, 'must be at least 1'),
            z.lte(PROVIDER_SCHEDULE_PAGE_MAX, `must be at most ${PROVIDER_SCHEDULE_PAGE_MAX}`),
          ),
      ),
    ),
  ),
});

const { id: ID, reference: REF, word: WORD, name: NAME } = FIELD_MAXIMA;
const clipped = (text: string | null, max: number) => (text === null ? null : clipText(text, max));

/** A copy of a provider schedule as answered: what the provider wrote clipped to the schema's maxima. */
const present = (entry: ProviderScheduleView) => ({
  ...entry,
  id: clipText(entry.id, ID),
  status: clipText(entry.status, WORD),
  bankCode: clipText(entry.bankCode, WORD),
  bankName: clipText(entry.bankName, NAME),
  accountNumber: clipText(entry.accountNumber, WORD),
  accountName: clipped(entry.accountName, NAME),
  narration: clipped(entry.narration, NAME),
  startsAt: clipText(entry.startsAt, WORD),
  ...(entry.endsAt !== undefined && { endsAt: clipText(entry.endsAt, WORD) }),
  ...(entry.interval !== undefined && { interval: clipText(entry.interval, WORD) }),
  ...(entry.transactionId !== undefined && { transactionId: clipped(entry.transactionId, REF) }),
  createdAt: clipText(entry.createdAt, WORD),
});

/**
 * The provider's own scheduled and recurrent payouts, from the read view the sync keeps (not a live call),
 * each flagged `alsoScheduledHere` when the same bank account also has a schedule on our side.
 */
function viewOf(kind: ProviderScheduleKind) {
  return async (request: RouteRequest) => {
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

export const providerScheduleRoutes: readonly Route[] = [
  route({ method: 'GET', path: '/provider/scheduled-payouts', ...view(ProviderScheduleKind.Scheduled) }),
  route({ method: 'GET', path: '/provider/recurrent-payouts', ...view(ProviderScheduleKind.Recurrent) }),
];
