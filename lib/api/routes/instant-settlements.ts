import { SettlementIdSchema } from '../../events/index.js';
import { PayoutStatus } from '../../payouts/index.js';
import type { PayOutResult, SettlementService } from '../../settlement/index.js';
import {
  type SettlementDecision,
  type SettlementDeferral,
  type SettlementListing,
  SettlementNotConfiguredError,
} from '../../settlement/index.js';
import { clipText, FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import { ApiError } from '../errors.js';
import { presentPayout, principal } from '../presenters.js';
import { parseBody, parseQuery } from '../request.js';
import {
  PayOutDecidedSchema,
  PayOutDeferredSchema,
  type SettlementDecisionResponseSchema,
  type SettlementDeferralResponseSchema,
  SettlementListingSchema,
  SettlementPageSchema,
} from '../responses/settlement.js';
import { type Answers, type Route, type RouteRequest, reply, route } from '../router.js';
import { ListSettlementsQuerySchema } from '../schemas.js';

/** Body of `POST /instant-settlements`. */
export const InstantSettlementRequestSchema = z.lazy(() =>
  z.strictObject({ settlementId: SettlementIdSchema }),
);

function serviceOf(request: RouteRequest<'settlements'>): SettlementService {
  if (!request.ctx.settlements) throw new SettlementNotConfiguredError();
  return request.ctx.settlements;
}

const { id: ID, word: WORD, text: TEXT } = FIELD_MAXIMA;

/** The provider's settlement as read when deciding, its texts clipped to the answer's maxima. */
const snapshotOf = (settlement: SettlementDecision['settlement']) => ({
  status: clipText(settlement.status, WORD),
  category: clipText(settlement.category, WORD),
  ...(settlement.amountKobo !== undefined && { amountKobo: settlement.amountKobo }),
  date: clipText(settlement.date, WORD),
});

/**
 * A decision as the API shows it. A `paid` decision whose payout waits for a second person (`payoutStatus`
 * `pending_approval`) is shown `awaiting_approval`: no money has moved, and calling it paid would tell ops the
 * settlement is done while it needs an approver (docs/api.md, "Instant settlement"). Once approved it shows `paid`.
 */
export function presentDecision(
  decision: SettlementDecision,
  payoutStatus?: PayoutStatus,
): z.output<typeof SettlementDecisionResponseSchema> {
  const awaiting = decision.decision === 'paid' && payoutStatus === PayoutStatus.PendingApproval;
  const reason = awaiting
    ? `waiting for a second person to approve the payout before ${decision.reason}`
    : decision.reason;
  return {
    settlementId: clipText(decision.settlementId, ID),
    decision: awaiting ? 'awaiting_approval' : decision.decision,
    ...(decision.code && { code: clipText(decision.code, WORD) }),
    reason: clipText(reason, TEXT),
    ...(decision.payoutId && { payoutId: decision.payoutId }),
    ...(payoutStatus && { payoutStatus }),
    ...(decision.amountKobo !== undefined && { amount: decision.amountKobo, currency: 'NGN' as const }),
    settlement: snapshotOf(decision.settlement),
    trigger: decision.trigger,
    decidedBy: principal(decision.decidedBy),
    decidedAt: decision.decidedAt,
  };
}

export function presentDeferral(
  deferral: SettlementDeferral,
): z.output<typeof SettlementDeferralResponseSchema> {
  return {
    settlementId: clipText(deferral.settlementId, ID),
    decision: 'deferred' as const,
    code: clipText(deferral.code, WORD),
    reason: clipText(deferral.reason, TEXT),
    settlement: snapshotOf(deferral.settlement),
    trigger: deferral.trigger,
    deferredBy: principal(deferral.deferredBy),
    deferredAt: deferral.deferredAt,
  };
}

function presentListing(listing: SettlementListing, payoutStatuses: ReadonlyMap<string, PayoutStatus>) {
  const { kind, ...rest } = listing;
  if (kind === 'deferral') return presentDeferral(rest as SettlementDeferral);
  const decision = rest as SettlementDecision;
  return presentDecision(decision, decision.payoutId ? payoutStatuses.get(decision.payoutId) : undefined);
}

function present(result: Exclude<PayOutResult, { outcome: 'deferred' }>) {
  const decision = presentDecision(
    result.decision,
    result.outcome === 'paid' ? result.payout?.status : undefined,
  );
  return {
    outcome: decision.decision,
    decision,
    ...(result.outcome === 'paid' && result.payout && { payout: presentPayout(result.payout) }),
  };
}

/**
 * POST /instant-settlements: pays a settlement out now, at most once (shared with the event and the poll).
 * 200 with the outcome; `deferred` (outside the allowed hours) is 202: nothing recorded, try later.
 */
async function payOut(request: RouteRequest<'settlements'>) {
  const { settlementId } = parseBody(request.event, InstantSettlementRequestSchema);
  // Sent here only within the request's send window, as POST /payouts: past it, the sweeper sends it.
  const result = await serviceOf(request).payOut(settlementId, 'api', request.principal(), undefined, {
    by: 'inline',
    sendWindow: request.deadline.sendWindow,
  });
  const location = { location: `/instant-settlements/${settlementId}` };
  if (result.outcome === 'deferred') {
    return reply(202, { outcome: result.outcome, reason: clipText(result.reason, TEXT) }, location);
  }
  return reply(200, present(result), location);
}

/** GET /instant-settlements/{id}: the decision, or the open deferral with its reason while there is none. */
async function getDecision(request: RouteRequest<'settlements'>) {
  const parsed = SettlementIdSchema.safeParse(request.params.settlementId);
  const service = serviceOf(request);
  const decision = parsed.success ? await service.decision(parsed.data) : undefined;
  if (decision) {
    const statuses = await service.payoutStatuses([decision]);
    return reply(
      200,
      presentDecision(decision, decision.payoutId ? statuses.get(decision.payoutId) : undefined),
    );
  }
  const deferral = parsed.success ? await service.deferral(parsed.data) : undefined;
  if (deferral) return reply(200, presentDeferral(deferral));
  throw new ApiError(
    404,
    'not-found',
    'Not found',
    'no decision or deferral has been recorded for this settlement',
  );
}

/** GET /instant-settlements: decisions and open deferrals, newest first, by `state`, cursor-paginated. */
async function listSettlements(request: RouteRequest<'settlements'>) {
  const query = parseQuery(request.event, ListSettlementsQuerySchema);
  const service = serviceOf(request);
  const page = await service.list({ ...query, limit: query.limit ?? 20 });
  const statuses = await service.payoutStatuses(
    page.items.flatMap((item) => (item.kind === 'decision' ? [item] : [])),
  );
  return reply(200, {
    items: page.items.map((item) => presentListing(item, statuses)),
    ...(page.nextCursor && { nextCursor: page.nextCursor }),
  });
}

export const instantSettlementRoutes: readonly Route<Answers, 'settlements'>[] = [
  route({
    method: 'POST',
    path: '/instant-settlements',
    operationId: 'payOutSettlement',
    summary: 'Pay a settlement out now under the instant-settlement policy',
    request: { body: { schema: InstantSettlementRequestSchema } },
    cli: { words: ['settlements', 'pay'], summary: 'pay one settlement out now (body: { settlementId })' },
    role: 'requester',
    responses: {
      200: {
        description:
          'decided: paid (with the payout), awaiting_approval (its payout waits for a second person) or skipped; header Location',
        schema: PayOutDecidedSchema,
      },
      202: {
        description: 'deferred: outside the allowed hours nothing is recorded; a later trigger decides',
        schema: PayOutDeferredSchema,
      },
    },
    problems: [
      'validation',
      'unauthenticated',
      'not-found',
      'invalid-transition',
      'concurrent-modification',
      'payouts-paused',
      'provider-unavailable',
      'provider-error',
      'not-configured',
    ],
    handler: payOut,
  }),
  route({
    method: 'GET',
    path: '/instant-settlements',
    operationId: 'listSettlementDecisions',
    summary: 'Decisions on settlements and deferrals still waiting for one, newest first',
    request: { query: ListSettlementsQuerySchema },
    cli: {
      words: ['settlements', 'list'],
      summary: 'decisions on settlements and deferrals waiting for one, newest first',
      list: true,
      query: ['state', 'limit'],
    },
    role: 'viewer',
    responses: {
      200: { description: 'decisions and open deferrals, newest first', schema: SettlementPageSchema },
    },
    problems: ['validation', 'not-configured'],
    handler: listSettlements,
  }),
  route({
    method: 'GET',
    path: '/instant-settlements/{settlementId}',
    operationId: 'getSettlementDecision',
    summary: 'The decision on a settlement, or its open deferral while it has none',
    request: { params: { settlementId: SettlementIdSchema } },
    cli: { words: ['settlements', 'get'], summary: 'the decision on a settlement' },
    role: 'viewer',
    responses: {
      200: {
        description: 'the decision, or the open deferral while there is none',
        schema: SettlementListingSchema,
      },
    },
    problems: ['not-found', 'not-configured'],
    handler: getDecision,
  }),
];
