import { CreateRefundRequestSchema, RefundStatus } from '../../refunds/index.js';
import { clientText } from '../../shared/text.js';
import * as z from '../../shared/zod.js';
import { presentRefund } from '../presenters.js';
import { CHANGE_PROBLEMS, COMMAND_PROBLEMS, DECISION_PROBLEMS } from '../problem-types.js';
import { idempotencyKeyOf, idParam, parseBody, parseQuery } from '../request.js';
import { RefundDetailSchema, RefundPageSchema, RefundResponseSchema } from '../responses/refund.js';
import { type Answers, type Route, type RouteRequest, reply, route } from '../router.js';
import {
  ApproveRequestSchema,
  CancelRequestSchema,
  PageCursorSchema,
  PageLimitSchema,
  RejectRequestSchema,
  ResourceIdSchema,
} from '../schemas.js';

/** `GET /refunds`: newest first, by status, cursor-paginated. */
export const ListRefundsQuerySchema = z.lazy(() =>
  z.strictObject({
    status: z.optional(z.enum(Object.values(RefundStatus) as [RefundStatus, ...RefundStatus[]])),
    limit: z.optional(PageLimitSchema),
    cursor: z.optional(PageCursorSchema),
  }),
);

/**
 * `POST /refunds/{id}/resolve`: a person's settlement of an `unknown` refund after checking the provider's records
 * by hand, applied when a second person sends the same decision (RefundService.resolve).
 */
export const ResolveRefundRequestSchema = z.lazy(() =>
  z.discriminatedUnion('outcome', [
    z.strictObject({
      /** The provider has no such refund: it is cancelled, its share and cap reservation given back. */
      outcome: z.literal('not_sent'),
      note: clientText({ max: 500 }),
    }),
    z.strictObject({
      /** The provider accepted it: it becomes `pending` with this id. */
      outcome: z.literal('accepted'),
      /** The provider's id of the refund, as its records show it. */
      providerRefundId: z.string().check(z.trim(), z.minLength(1), z.maxLength(100)),
      note: clientText({ max: 500 }),
    }),
  ]),
);

async function listRefunds(request: RouteRequest<'refunds'>) {
  const query = parseQuery(request.event, ListRefundsQuerySchema);
  const page = await request.ctx.refunds.list({ ...query, limit: query.limit ?? 20 });
  return reply(200, {
    items: page.items.map((refund) => presentRefund(refund)),
    ...(page.nextCursor && { nextCursor: page.nextCursor }),
  });
}

/**
 * POST /refunds: through the control gate, within what was paid on the transaction, recorded once per
 * `Idempotency-Key`, then sent to the provider once (or left waiting for approval, or for payouts to resume).
 */
async function createRefund(request: RouteRequest<'refunds'>) {
  const idempotencyKey = idempotencyKeyOf(request.event);
  const body = parseBody(request.event, CreateRefundRequestSchema);
  // Sent here only within the request's send window, as POST /payouts: past it the refund waits for the sweep.
  const { refund, replayed } = await request.ctx.refunds.request(
    { request: body, idempotencyKey, actor: request.principal() },
    { sendWindow: request.deadline.sendWindow },
  );
  if (replayed) return reply(200, presentRefund(refund), { 'idempotent-replayed': 'true' });
  return reply(201, presentRefund(refund), { location: `/refunds/${refund.id}` });
}

/** GET /refunds/{id}: the refund with its audit trail. */
async function getRefund(request: RouteRequest<'refunds'>) {
  const { refund, audit } = await request.ctx.refunds.getWithAudit(idParam(request));
  return reply(200, presentRefund(refund, audit));
}

/**
 * POST /refunds/{id}/approve: a second person (never the requester) approves; the refund is then sent, within the
 * request's send window (past it, the sweep sends it).
 */
async function approveRefund(request: RouteRequest<'refunds'>) {
  const id = idParam(request);
  parseBody(request.event, ApproveRequestSchema, {});
  const refund = await request.ctx.refunds.approve(id, request.principal(), {
    sendWindow: request.deadline.sendWindow,
  });
  return reply(200, presentRefund(refund));
}

/** POST /refunds/{id}/reject: a second person refuses a refund waiting for approval; it ends cancelled, unsent. */
async function rejectRefund(request: RouteRequest<'refunds'>) {
  const id = idParam(request);
  const { reason } = parseBody(request.event, RejectRequestSchema);
  return reply(200, presentRefund(await request.ctx.refunds.reject(id, request.principal(), reason)));
}

/** POST /refunds/{id}/cancel: withdraws a refund never sent, giving back its share of the transaction's total. */
async function cancelRefund(request: RouteRequest<'refunds'>) {
  const id = idParam(request);
  const body = parseBody(request.event, CancelRequestSchema, {});
  const refund = await request.ctx.refunds.cancel(id, request.principal(), body.reason);
  return reply(200, presentRefund(refund));
}

/** POST /refunds/{id}/resolve: 202 while the decision waits for a second person, 200 once applied. */
async function resolveRefund(request: RouteRequest<'refunds'>) {
  const id = idParam(request);
  const decision = parseBody(request.event, ResolveRefundRequestSchema);
  const { refund, applied } = await request.ctx.refunds.resolve(id, request.principal(), decision);
  return reply(applied ? 200 : 202, presentRefund(refund));
}

const theRefund = (description: string) => ({ description, schema: RefundResponseSchema });

export const refundRoutes: readonly Route<Answers, 'refunds'>[] = [
  route({
    method: 'POST',
    path: '/refunds',
    operationId: 'createRefund',
    summary:
      'Request a refund of a payment-link transaction (amount in integer kobo). Above the per-payout maximum: 400 naming amount. Unknown or unpaid transaction, or refunds of the transaction would exceed what was paid: 422 naming transactionId or amount, nothing stored or sent. At or above the approval threshold it waits in pending_approval; while payouts are paused it waits in requested; beyond the merchant daily cap it is rejected (DAILY_CAP_EXCEEDED)',
    request: { idempotencyKey: 'required', body: { schema: CreateRefundRequestSchema } },
    cli: { words: ['refunds', 'create'], summary: 'refund a provider transaction from a JSON body' },
    role: 'requester',
    responses: {
      201: theRefund('recorded (sent, or waiting for approval or for payouts to resume); header Location'),
      200: theRefund('replay of the same key and body; header Idempotent-Replayed: true'),
    },
    problems: [
      ...COMMAND_PROBLEMS,
      'idempotency-conflict',
      'refund-refused',
      'provider-unavailable',
      'provider-error',
    ],
    handler: createRefund,
  }),
  route({
    method: 'GET',
    path: '/refunds',
    operationId: 'listRefunds',
    summary: 'Refunds newest first, by status (pending_approval: those waiting for a second person)',
    request: { query: ListRefundsQuerySchema },
    cli: {
      words: ['refunds', 'list'],
      summary: 'refunds newest first (--status pending_approval: waiting for a second person)',
      list: true,
      query: ['status', 'limit'],
    },
    role: 'viewer',
    responses: { 200: { description: 'a page, newest first', schema: RefundPageSchema } },
    problems: ['validation'],
    handler: listRefunds,
  }),
  route({
    method: 'GET',
    path: '/refunds/{id}',
    operationId: 'getRefund',
    summary: 'A refund with its audit trail',
    request: { params: { id: ResourceIdSchema } },
    cli: { words: ['refunds', 'get'], summary: 'a refund with its audit' },
    role: 'viewer',
    responses: { 200: { description: 'the refund with its audit trail', schema: RefundDetailSchema } },
    problems: ['not-found'],
    handler: getRefund,
  }),
  route({
    method: 'POST',
    path: '/refunds/{id}/approve',
    operationId: 'approveRefund',
    summary:
      'Approve a refund in pending_approval (never by its requester, compared by stable identity); it is then sent',
    request: { params: { id: ResourceIdSchema }, body: { schema: ApproveRequestSchema, required: false } },
    cli: {
      words: ['refunds', 'approve'],
      summary: 'approve a refund as the second person; it is then sent',
      confirmFrom: '/refunds/{id}',
    },
    role: 'approver',
    responses: { 200: theRefund('approved (and sent, unless payouts are paused)') },
    problems: DECISION_PROBLEMS,
    handler: approveRefund,
  }),
  route({
    method: 'POST',
    path: '/refunds/{id}/reject',
    operationId: 'rejectRefund',
    summary:
      'Reject a refund waiting for approval, with the reason (never by its requester, who cancels instead): it ends `cancelled` with its `rejection`, never sent, its share of the transaction given back',
    request: { params: { id: ResourceIdSchema }, body: { schema: RejectRequestSchema } },
    cli: {
      words: ['refunds', 'reject'],
      summary: 'reject a refund waiting for approval, as the second person, with --reason; it is never sent',
      bodyFlags: ['reason'],
      confirmFrom: '/refunds/{id}',
    },
    role: 'approver',
    responses: { 200: theRefund('rejected: `cancelled` with its `rejection` (who, why, when); never sent') },
    problems: DECISION_PROBLEMS,
    handler: rejectRefund,
  }),
  route({
    method: 'POST',
    path: '/refunds/{id}/cancel',
    operationId: 'cancelRefund',
    summary:
      'Withdraw a refund never sent (pending_approval, requested, not_sent); its share of the transaction total is given back',
    request: { params: { id: ResourceIdSchema }, body: { schema: CancelRequestSchema, required: false } },
    cli: { words: ['refunds', 'cancel'], summary: 'withdraw a refund never sent', bodyFlags: ['reason'] },
    role: 'requester',
    responses: { 200: theRefund('cancelled') },
    problems: CHANGE_PROBLEMS,
    handler: cancelRefund,
  }),
  route({
    method: 'POST',
    path: '/refunds/{id}/resolve',
    operationId: 'resolveRefund',
    summary:
      'Settle an unknown refund after checking the provider by hand: not_sent (cancelled, its share of the transaction total and its cap reservation given back) or accepted (pending, with the provider refund id); the note is audited',
    description:
      'The provider has no read of a refund, so the decision is a person’s word and takes two people: the first call records a proposal (202, the refund stays unknown with `resolutionProposal`); the same decision (outcome and providerRefundId) by a different person applies it (200), with both people and both notes in the audit; by the proposer it is 403. Another decision replaces the proposal. Only an unknown refund can be resolved: 409 otherwise.',
    request: { params: { id: ResourceIdSchema }, body: { schema: ResolveRefundRequestSchema } },
    cli: {
      words: ['refunds', 'resolve'],
      summary: 'settle an unknown refund (proposal; a second person applies it)',
      confirmFrom: '/refunds/{id}',
    },
    role: 'approver',
    responses: {
      200: theRefund('resolved: cancelled (not_sent) or pending (accepted)'),
      202: theRefund('resolution proposed (`resolutionProposal`); a second person must send the same one'),
    },
    problems: DECISION_PROBLEMS,
    handler: resolveRefund,
  }),
];
