import { PayoutStatus } from '../../payouts/model.js';
import { CreatePayoutRequestSchema } from '../../payouts/schemas.js';
import { ApiError } from '../errors.js';
import { presentPayout, presentPayoutPage } from '../presenters.js';
import { idempotencyKeyOf, parseBody, parseQuery } from '../request.js';
import type { Route, RouteRequest, RouteResult } from '../router.js';
import {
  ApproveRequestSchema,
  CancelRequestSchema,
  ListPayoutsQuerySchema,
  ResolveReviewRequestSchema,
  ResourceIdSchema,
} from '../schemas.js';

/** The `{id}` path parameter; a malformed id cannot exist, so it is a 404 like any unknown id. */
export function idParam(request: RouteRequest): string {
  const parsed = ResourceIdSchema.safeParse(request.params.id);
  if (!parsed.success) throw new ApiError(404, 'not-found', 'Not found', 'no resource has this id');
  return parsed.data;
}

/**
 * POST /payouts: create (idempotent per `Idempotency-Key`), then submit at once when it is `pending`.
 * A failed inline submission never fails the request: the payout is recorded and the sweeper retries it.
 */
async function createPayout(request: RouteRequest): Promise<RouteResult> {
  const { event, ctx } = request;
  const idempotencyKey = idempotencyKeyOf(event);
  const body = parseBody(event, CreatePayoutRequestSchema);
  const actor = request.principal();
  const { payout, replayed } = await ctx.engine.create({
    request: body,
    idempotencyKey,
    origin: 'api',
    actor,
    submitsInline: true,
  });
  if (replayed) {
    return { status: 200, body: presentPayout(payout), headers: { 'idempotent-replayed': 'true' } };
  }
  let latest = payout;
  if (payout.status === PayoutStatus.Pending) {
    try {
      latest = (await ctx.engine.submit(payout.id)).payout;
    } catch (error) {
      ctx.logger.warn('inline submission failed; the sweeper will pick the payout up', {
        payoutId: payout.id,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return { status: 201, body: presentPayout(latest), headers: { location: `/payouts/${payout.id}` } };
}

async function getPayout(request: RouteRequest) {
  const { payout, audit } = await request.ctx.engine.getWithAudit(idParam(request));
  return { status: 200, body: presentPayout(payout, audit) };
}

async function listPayouts(request: RouteRequest) {
  const query = parseQuery(request.event, ListPayoutsQuerySchema);
  const page = await request.ctx.engine.list({ ...query, limit: query.limit ?? 20 });
  return { status: 200, body: presentPayoutPage(page.items, page.nextCursor) };
}

async function cancelPayout(request: RouteRequest) {
  const id = idParam(request);
  const body = parseBody(request.event, CancelRequestSchema, {});
  const payout = await request.ctx.engine.cancel(id, request.principal(), body.reason);
  return { status: 200, body: presentPayout(payout) };
}

async function approvePayout(request: RouteRequest) {
  const id = idParam(request);
  parseBody(request.event, ApproveRequestSchema, {});
  const payout = await request.ctx.engine.approve(id, request.principal());
  return { status: 200, body: presentPayout(payout) };
}

/** POST /payouts/{id}/resolve: a person decides a payout the reconciler could not (needs_review only). */
async function resolvePayout(request: RouteRequest) {
  const id = idParam(request);
  const decision = parseBody(request.event, ResolveReviewRequestSchema);
  const payout = await request.ctx.engine.resolveReview(id, request.principal(), decision);
  // A forced resolution's first call only records the proposal: accepted, waiting for a second person.
  const proposed = payout.status === PayoutStatus.NeedsReview;
  return { status: proposed ? 202 : 200, body: presentPayout(payout) };
}

export const payoutRoutes: readonly Route[] = [
  { method: 'POST', path: '/payouts', handler: createPayout },
  { method: 'GET', path: '/payouts', handler: listPayouts },
  { method: 'GET', path: '/payouts/{id}', handler: getPayout },
  { method: 'POST', path: '/payouts/{id}/cancel', handler: cancelPayout },
  { method: 'POST', path: '/payouts/{id}/approve', handler: approvePayout },
  { method: 'POST', path: '/payouts/{id}/resolve', handler: resolvePayout },
];
