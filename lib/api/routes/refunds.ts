import { CreateRefundRequestSchema } from '../../refunds/model.js';
import { presentRefund } from '../presenters.js';
import { idempotencyKeyOf, parseBody } from '../request.js';
import type { Route, RouteRequest, RouteResult } from '../router.js';
import { idParam } from './payouts.js';

/** POST /refunds: recorded once per `Idempotency-Key`, then sent to the provider once. */
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

async function getRefund(request: RouteRequest) {
  return { status: 200, body: presentRefund(await request.ctx.refunds.get(idParam(request))) };
}

export const refundRoutes: readonly Route[] = [
  { method: 'POST', path: '/refunds', handler: createRefund },
  { method: 'GET', path: '/refunds/{id}', handler: getRefund },
];
