import { CreateRefundRequestSchema, RefundStatus } from '../../refunds/model.js';
import * as z from '../../shared/zod.js';
import { presentRefund } from '../presenters.js';
import { idempotencyKeyOf, parseBody, parseQuery } from '../request.js';
import type { Route, RouteRequest, RouteResult } from '../router.js';
import { ApproveRequestSchema, CancelRequestSchema, ListPayoutsQuerySchema } from '../schemas.js';

/** `GET /refunds`: newest first, by status, cursor-paginated. */
export const ListRefundsQuerySchema = z.strictObject({
  status: z.optional(z.enum(Object.values(RefundStatus) as [RefundStatus, ...RefundStatus[]])),
  limit: ListPayoutsQuerySchema.shape.limit,
  cursor: ListPayoutsQuerySchema.shape.cursor,
});

async function listRefunds(request: RouteRequest): Promise<RouteResult> {
  const query = parseQuery(request.event, ListRefundsQuerySchema);
  const page = await request.ctx.refunds.list({ ...query, limit: query.limit ?? 20 });
  return {
    status: 200,
    body: {
      items: page.items.map((refund) => presentRefund(refund)),
      ...(page.nextCursor && { nextCursor: page.nextCursor }),
    },
  };
}

import { idParam } from './payouts.js';

/**
 * POST /refunds: through the control gate, within what was paid on the transaction, recorded once per
 * `Idempotency-Key`, then sent to the provider once (or left waiting for approval, or for payouts to resume).
 */
async function createRefund(request: RouteRequest): Promise<RouteResult> {
  const idempotencyKey = idempotencyKeyOf(request.event);
  const body = parseBody(request.event, CreateRefundRequestSchema);
  const { refund, replayed } = await request.ctx.refunds.request({
    request: body,
    idempotencyKey,
    actor: request.principal(),
  });
  if (replayed)
    return { status: 200, body: presentRefund(refund), headers: { 'idempotent-replayed': 'true' } };
  return { status: 201, body: presentRefund(refund), headers: { location: `/refunds/${refund.id}` } };
}

/** GET /refunds/{id}: the refund with its audit trail. */
async function getRefund(request: RouteRequest) {
  const { refund, audit } = await request.ctx.refunds.getWithAudit(idParam(request));
  return { status: 200, body: presentRefund(refund, audit) };
}

/** POST /refunds/{id}/approve: a second person (never the requester) approves; the refund is then sent. */
async function approveRefund(request: RouteRequest) {
  const id = idParam(request);
  parseBody(request.event, ApproveRequestSchema, {});
  return { status: 200, body: presentRefund(await request.ctx.refunds.approve(id, request.principal())) };
}

/** POST /refunds/{id}/cancel: withdraws a refund never sent, giving back its share of the transaction's total. */
async function cancelRefund(request: RouteRequest) {
  const id = idParam(request);
  const body = parseBody(request.event, CancelRequestSchema, {});
  const refund = await request.ctx.refunds.cancel(id, request.principal(), body.reason);
  return { status: 200, body: presentRefund(refund) };
}

export const refundRoutes: readonly Route[] = [
  { method: 'POST', path: '/refunds', handler: createRefund },
  { method: 'GET', path: '/refunds', handler: listRefunds },
  { method: 'GET', path: '/refunds/{id}', handler: getRefund },
  { method: 'POST', path: '/refunds/{id}/approve', handler: approveRefund },
  { method: 'POST', path: '/refunds/{id}/cancel', handler: cancelRefund },
];
