import { CreateRefundRequestSchema } from '../../refunds/model.js';
import { presentRefund } from '../presenters.js';
import { idempotencyKeyOf, parseBody } from '../request.js';
import type { Route, RouteRequest, RouteResult } from '../router.js';
import { ApproveRequestSchema, CancelRequestSchema } from '../schemas.js';
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
  { method: 'GET', path: '/refunds/{id}', handler: getRefund },
  { method: 'POST', path: '/refunds/{id}/approve', handler: approveRefund },
  { method: 'POST', path: '/refunds/{id}/cancel', handler: cancelRefund },
];
