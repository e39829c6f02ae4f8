import { SettlementIdSchema } from '../../events/schemas.js';
import { SettlementNotConfiguredError } from '../../settlement/errors.js';
import type { SettlementDecision } from '../../settlement/model.js';
import type { PayOutResult, SettlementService } from '../../settlement/settlement-service.js';
import * as z from '../../shared/zod.js';
import { ApiError } from '../errors.js';
import { presentPayout } from '../presenters.js';
import { parseBody } from '../request.js';
import type { Route, RouteRequest, RouteResult } from '../router.js';

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

async function getDecision(request: RouteRequest): Promise<RouteResult> {
  const parsed = SettlementIdSchema.safeParse(request.params.settlementId);
  const decision = parsed.success ? await serviceOf(request).decision(parsed.data) : undefined;
  if (!decision) {
    throw new ApiError(404, 'not-found', 'Not found', 'no decision has been recorded for this settlement');
  }
  return { status: 200, body: presentDecision(decision) };
}

export const instantSettlementRoutes: readonly Route[] = [
  { method: 'POST', path: '/instant-settlements', handler: payOut },
  { method: 'GET', path: '/instant-settlements/{settlementId}', handler: getDecision },
];
