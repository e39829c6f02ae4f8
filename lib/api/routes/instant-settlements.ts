import { SettlementIdSchema } from '../../events/schemas.js';
import { SettlementNotConfiguredError } from '../../settlement/errors.js';
import type { SettlementDecision, SettlementDeferral, SettlementListing } from '../../settlement/model.js';
import type { PayOutResult, SettlementService } from '../../settlement/settlement-service.js';
import * as z from '../../shared/zod.js';
import { ApiError } from '../errors.js';
import { presentPayout } from '../presenters.js';
import { parseBody, parseQuery } from '../request.js';
import type { Route, RouteRequest, RouteResult } from '../router.js';
import { ListSettlementsQuerySchema } from '../schemas.js';

/** Body of `POST /instant-settlements`. */
export const InstantSettlementRequestSchema = z.strictObject({ settlementId: SettlementIdSchema });

function serviceOf(request: RouteRequest): SettlementService {
  if (!request.ctx.settlements) throw new SettlementNotConfiguredError();
  return request.ctx.settlements;
}

export function presentDecision(decision: SettlementDecision) {
  return {
    settlementId: decision.settlementId,
    decision: decision.decision,
    ...(decision.code && { code: decision.code }),
    reason: decision.reason,
    ...(decision.payoutId && { payoutId: decision.payoutId }),
    ...(decision.amountKobo !== undefined && { amount: decision.amountKobo, currency: 'NGN' }),
    settlement: decision.settlement,
    trigger: decision.trigger,
    decidedBy: decision.decidedBy,
    decidedAt: decision.decidedAt,
  };
}

export function presentDeferral(deferral: SettlementDeferral) {
  return {
    settlementId: deferral.settlementId,
    decision: 'deferred' as const,
    code: deferral.code,
    reason: deferral.reason,
    settlement: deferral.settlement,
    trigger: deferral.trigger,
    deferredBy: deferral.deferredBy,
    deferredAt: deferral.deferredAt,
  };
}

function presentListing(listing: SettlementListing) {
  const { kind, ...rest } = listing;
  return kind === 'deferral'
    ? presentDeferral(rest as SettlementDeferral)
    : presentDecision(rest as SettlementDecision);
}

function present(result: PayOutResult) {
  if (result.outcome === 'deferred') return { outcome: result.outcome, reason: result.reason };
  return {
    outcome: result.outcome,
    decision: presentDecision(result.decision),
    ...(result.outcome === 'paid' && result.payout && { payout: presentPayout(result.payout) }),
  };
}

/**
 * POST /instant-settlements: pays a settlement out now, at most once (shared with the event and the poll).
 * 200 with the outcome; `deferred` (outside the allowed hours) is 202: nothing recorded, try later.
 */
async function payOut(request: RouteRequest): Promise<RouteResult> {
  const { settlementId } = parseBody(request.event, InstantSettlementRequestSchema);
  const result = await serviceOf(request).payOut(settlementId, 'api', request.principal());
  return {
    status: result.outcome === 'deferred' ? 202 : 200,
    body: present(result),
    headers: { location: `/instant-settlements/${settlementId}` },
  };
}

/** GET /instant-settlements/{id}: the decision, or the open deferral with its reason while there is none. */
async function getDecision(request: RouteRequest): Promise<RouteResult> {
  const parsed = SettlementIdSchema.safeParse(request.params.settlementId);
  const service = serviceOf(request);
  const decision = parsed.success ? await service.decision(parsed.data) : undefined;
  if (decision) return { status: 200, body: presentDecision(decision) };
  const deferral = parsed.success ? await service.deferral(parsed.data) : undefined;
  if (deferral) return { status: 200, body: presentDeferral(deferral) };
  throw new ApiError(
    404,
    'not-found',
    'Not found',
    'no decision or deferral has been recorded for this settlement',
  );
}

/** GET /instant-settlements: decisions and open deferrals, newest first, by `state`, cursor-paginated. */
async function listSettlements(request: RouteRequest): Promise<RouteResult> {
  const query = parseQuery(request.event, ListSettlementsQuerySchema);
  const page = await serviceOf(request).list({ ...query, limit: query.limit ?? 20 });
  return {
    status: 200,
    body: { items: page.items.map(presentListing), ...(page.nextCursor && { nextCursor: page.nextCursor }) },
  };
}

export const instantSettlementRoutes: readonly Route[] = [
  { method: 'POST', path: '/instant-settlements', handler: payOut },
  { method: 'GET', path: '/instant-settlements', handler: listSettlements },
  { method: 'GET', path: '/instant-settlements/{settlementId}', handler: getDecision },
];
