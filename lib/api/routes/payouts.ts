import {
  approvePayout as approveAsCommand,
  CreatePayoutRequestSchema,
  createAndSubmit,
  rejectPayout as rejectAsCommand,
  resolveReview,
} from '../../payouts/index.js';
import { encodeCursor, readCursor } from '../../shared/cursor.js';
import { NotFoundError } from '../../shared/errors.js';
import { activeTraceparent } from '../../shared/tracing.js';
import * as z from '../../shared/zod.js';
import { presentAuditEvent, presentPayout, presentPayoutPage } from '../presenters.js';
import { CHANGE_PROBLEMS, COMMAND_PROBLEMS, DECISION_PROBLEMS } from '../problem-types.js';
import { idempotencyKeyOf, idParam, parseBody, parseQuery } from '../request.js';
import {
  PayoutAuditPageSchema,
  PayoutDetailSchema,
  PayoutPageSchema,
  PayoutResponseSchema,
} from '../responses/payout.js';
import { type Answers, type Route, type RouteRequest, reply, route } from '../router.js';
import {
  ApproveRequestSchema,
  CancelRequestSchema,
  ListPayoutsQuerySchema,
  pageOnlyQuery,
  RejectRequestSchema,
  ResolveReviewRequestSchema,
  ResourceIdSchema,
} from '../schemas.js';

/**
 * POST /payouts: create (idempotent per `Idempotency-Key`) and submit at once when it can go now (created
 * already claimed: engine/create-and-submit.ts), if the send fits the request's deadline (its `sendWindow`);
 * otherwise the payout is answered `pending` and the sweeper sends it. A failed inline submission never fails
 * the request: the payout is recorded and the sweeper or the reconciler takes it on.
 */
async function createPayout(request: RouteRequest<'engine'>) {
  const { event, ctx } = request;
  const idempotencyKey = idempotencyKeyOf(event);
  const body = parseBody(event, CreatePayoutRequestSchema);
  const actor = request.principal();
  const { payout, replayed } = await createAndSubmit(
    ctx.engine.ctx,
    {
      request: body,
      idempotencyKey,
      origin: 'api',
      actor,
      correlationId: request.correlationId,
      ...traceOf(activeTraceparent()),
    },
    { sendWindow: request.deadline.sendWindow },
  );
  if (replayed) {
    return reply(200, presentPayout(payout), { 'idempotent-replayed': 'true' });
  }
  return reply(201, presentPayout(payout), { location: `/payouts/${payout.id}` });
}

const traceOf = (traceparent: string | undefined) => (traceparent ? { traceparent } : {});

async function getPayout(request: RouteRequest<'payoutAuditTrail'>) {
  const id = idParam(request);
  const found = await request.ctx.payoutAuditTrail.whole(id);
  if (!found) throw new NotFoundError('payout', id);
  return reply(200, presentPayout(found.payout, found.audit));
}

/** `GET /payouts/{id}/audit`: the whole trail page by page (the payout's own answer holds its newest events). */
export const AuditPageQuerySchema = pageOnlyQuery('page size in events, 1 to 100, default 50');

/** The position a page of an audit trail stopped at, as its cursor carries it. */
const AuditCursorSchema = z.lazy(() =>
  z.strictObject({
    item: z.int().check(z.nonnegative()),
    sequence: z.int().check(z.positive()),
  }),
);

async function getAuditPage(request: RouteRequest<'payoutAuditTrail'>) {
  const query = parseQuery(request.event, AuditPageQuerySchema);
  const after = readCursor(query.cursor, AuditCursorSchema);
  const id = idParam(request);
  const page = await request.ctx.payoutAuditTrail.page(id, {
    limit: query.limit ?? 50,
    ...(after && { after }),
  });
  if (!page) throw new NotFoundError('payout', id);
  return reply(200, {
    items: page.events.map(presentAuditEvent),
    ...(page.next && { nextCursor: encodeCursor(page.next) }),
  });
}

async function listPayouts(request: RouteRequest<'payoutListing'>) {
  const query = parseQuery(request.event, ListPayoutsQuerySchema);
  const page = await request.ctx.payoutListing.list({ ...query, limit: query.limit ?? 20 });
  return reply(200, presentPayoutPage(page.items, page.nextCursor));
}

async function cancelPayout(request: RouteRequest<'engine'>) {
  const id = idParam(request);
  const body = parseBody(request.event, CancelRequestSchema, {});
  const payout = await request.ctx.engine.cancel(id, request.principal(), body.reason);
  return reply(200, presentPayout(payout));
}

async function approvePayout(request: RouteRequest<'engine'>) {
  const id = idParam(request);
  parseBody(request.event, ApproveRequestSchema, {});
  const payout = await approveAsCommand(request.ctx.engine.ctx, id, request.principal());
  return reply(200, presentPayout(payout));
}

/** POST /payouts/{id}/reject: a second person refuses a payout waiting for approval; it ends cancelled, for good. */
async function rejectPayout(request: RouteRequest<'engine'>) {
  const id = idParam(request);
  const { reason } = parseBody(request.event, RejectRequestSchema);
  const payout = await rejectAsCommand(request.ctx.engine.ctx, id, request.principal(), reason);
  return reply(200, presentPayout(payout));
}

/**
 * POST /payouts/{id}/resolve: two people decide a payout in `needs_review` or `unknown`. 202 while the decision
 * waits for the second person (`resolutionProposal`), 200 once applied.
 */
async function resolvePayout(request: RouteRequest<'engine'>) {
  const id = idParam(request);
  const decision = parseBody(request.event, ResolveReviewRequestSchema);
  const payout = await resolveReview(request.ctx.engine.ctx, id, request.principal(), decision);
  // Applying a resolution clears the proposal; one still there is the one just recorded.
  return reply(payout.resolutionProposal ? 202 : 200, presentPayout(payout));
}

const thePayout = (description: string) => ({ description, schema: PayoutResponseSchema });
/** Every command names a person: in AWS an unsigned call is 401, locally a malformed X-Ops-Principal a 400. */

export const payoutRoutes: readonly Route<Answers, 'engine' | 'payoutAuditTrail' | 'payoutListing'>[] = [
  route({
    method: 'POST',
    path: '/payouts',
    operationId: 'createPayout',
    summary: 'Create a payout (idempotent per Idempotency-Key); a pending payout is submitted at once',
    request: { idempotencyKey: 'required', body: { schema: CreatePayoutRequestSchema } },
    cli: { words: ['payouts', 'create'], summary: 'create a payout from a JSON body' },
    role: 'requester',
    responses: {
      201: thePayout('created (and submitted when it was pending); header Location'),
      200: thePayout('replay of the same key and body; header Idempotent-Replayed: true'),
    },
    problems: [...COMMAND_PROBLEMS, 'idempotency-conflict'],
    handler: createPayout,
  }),
  route({
    method: 'GET',
    path: '/payouts',
    operationId: 'listPayouts',
    summary: 'List payouts, newest first, with cursor pagination',
    request: { query: ListPayoutsQuerySchema },
    cli: {
      words: ['payouts', 'list'],
      summary: 'list payouts, newest first',
      list: true,
      query: ['status', 'type', 'from', 'to', 'limit'],
    },
    role: 'viewer',
    responses: { 200: { description: 'a page, newest first', schema: PayoutPageSchema } },
    problems: ['validation'],
    handler: listPayouts,
  }),
  route({
    method: 'GET',
    path: '/payouts/{id}',
    operationId: 'getPayout',
    summary: 'A payout with its audit trail',
    request: { params: { id: ResourceIdSchema } },
    cli: { words: ['payouts', 'get'], summary: 'a payout with its audit' },
    role: 'viewer',
    responses: { 200: { description: 'the payout with its audit trail', schema: PayoutDetailSchema } },
    problems: ['not-found'],
    handler: getPayout,
  }),
  route({
    method: 'GET',
    path: '/payouts/{id}/audit',
    operationId: 'getPayoutAudit',
    summary:
      "A payout's whole audit trail, oldest first, page by page (`GET /payouts/{id}` holds only its newest events and counts the rest in `auditOmitted`)",
    request: { params: { id: ResourceIdSchema }, query: AuditPageQuerySchema },
    cli: {
      words: ['payouts', 'audit'],
      summary: "a payout's whole audit trail, oldest first (--all for every page)",
      list: true,
      query: ['limit'],
    },
    role: 'viewer',
    responses: {
      200: { description: 'a page of the audit trail, oldest first', schema: PayoutAuditPageSchema },
    },
    problems: ['validation', 'not-found'],
    handler: getAuditPage,
  }),
  route({
    method: 'POST',
    path: '/payouts/{id}/cancel',
    operationId: 'cancelPayout',
    summary: 'Cancel a payout that has not been submitted',
    request: { params: { id: ResourceIdSchema }, body: { schema: CancelRequestSchema, required: false } },
    cli: {
      words: ['payouts', 'cancel'],
      summary: 'cancel a payout not yet submitted',
      bodyFlags: ['reason'],
    },
    role: 'requester',
    responses: { 200: thePayout('cancelled') },
    problems: CHANGE_PROBLEMS,
    handler: cancelPayout,
  }),
  route({
    method: 'POST',
    path: '/payouts/{id}/approve',
    operationId: 'approvePayout',
    summary: 'Approve a payout waiting for approval (never by its requester)',
    request: { params: { id: ResourceIdSchema }, body: { schema: ApproveRequestSchema, required: false } },
    cli: {
      words: ['payouts', 'approve'],
      summary: 'approve a payout as the second person',
      confirmFrom: '/payouts/{id}',
    },
    role: 'approver',
    responses: { 200: thePayout('approved (and submitted when due)') },
    problems: [...DECISION_PROBLEMS, 'payouts-paused'],
    handler: approvePayout,
  }),
  route({
    method: 'POST',
    path: '/payouts/{id}/reject',
    operationId: 'rejectPayout',
    summary:
      'Reject a payout waiting for approval, with the reason (never by its requester, who cancels instead): it ends `cancelled` with its `rejection`, for good, never sent',
    request: { params: { id: ResourceIdSchema }, body: { schema: RejectRequestSchema } },
    cli: {
      words: ['payouts', 'reject'],
      summary:
        'reject a payout waiting for approval, as the second person, with --reason; it is cancelled for good',
      bodyFlags: ['reason'],
      confirmFrom: '/payouts/{id}',
    },
    role: 'approver',
    responses: { 200: thePayout('rejected: `cancelled` with its `rejection` (who, why, when); never sent') },
    problems: DECISION_PROBLEMS,
    handler: rejectPayout,
  }),
  route({
    method: 'POST',
    path: '/payouts/{id}/resolve',
    operationId: 'resolvePayout',
    summary:
      'Two people decide a payout in needs_review or unknown: succeeded (with the provider transaction id), failed, or paid_twice_recovered; both notes are audited',
    description:
      "Every resolution takes two people: the first call records a proposal (202, the payout keeps its status, with `resolutionProposal`); the same decision sent by a different person (another identity) applies it (200); by the proposer it is 403. Another decision replaces the proposal. The provider is read at both calls. `succeeded`: the named record must exist and be a SUCCESS debit whose narration ends with one of the payout's attempt markers (`po_<id>` or `po_<id>_<n>`), with the payout's amount and destination; the payout takes the record's receipt, charges included. `failed`: the provider must show no record for any attempt marker, and the payout no receipt; the cap reservation is then given back. Otherwise both answer 409 naming why, unless `force: true` is sent by both people (a forced `failed` gives no reservation back). A payout paid twice (`paidTwice`) is closed only as `paid_twice_recovered`, with the `recoveryReference` of how the extra money was recovered: it ends `succeeded` with `recovery`, every payment still counted on the daily cap (409 for any other outcome). Every attempt stays watched until its window ends, whatever the resolution. 503 when the provider cannot be asked (nothing changed).",
    request: { params: { id: ResourceIdSchema }, body: { schema: ResolveReviewRequestSchema } },
    cli: {
      words: ['payouts', 'resolve'],
      summary: 'propose or confirm (a second person) the decision on a payout in needs_review or unknown',
      confirmFrom: '/payouts/{id}',
    },
    role: 'approver',
    responses: {
      200: thePayout('resolved: a second person confirmed the proposal'),
      202: thePayout(
        'resolution proposed (`resolutionProposal`); a second person must send the same decision',
      ),
    },
    problems: [...DECISION_PROBLEMS, 'resolution-mismatch', 'provider-unavailable'],
    handler: resolvePayout,
  }),
];
