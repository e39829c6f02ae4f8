/** GET /payment-link/transactions, GET /payment-link, GET /payment-link/payment/status (seeded, read-only). */
import { PROVIDER_PATHS } from '../contract.js';
import { notFound } from '../errors.js';
import { ok, type Reply, type SandboxRequest } from '../http.js';
import { block, newestFirst, paginate } from '../paging.js';
import type { Route, RouteContext } from '../route.js';
import { pagination, requiredQuery } from '../validate.js';

function listTransactions(req: SandboxRequest, ctx: RouteContext): Reply {
  const { page, perPage } = pagination(req.query);
  const p = paginate(newestFirst(ctx.state.paymentLinkTransactions), page, perPage);
  return ok({ ...block(p), transactions: p.items }, 'Payment link transactions retrieved successfully');
}

function listLinks(req: SandboxRequest, ctx: RouteContext): Reply {
  const { page, perPage } = pagination(req.query);
  const p = paginate(newestFirst(ctx.state.paymentLinks), page, perPage);
  return ok({ links: p.items, ...block(p) }, 'Payment links retrieved successfully');
}

function paymentStatus(req: SandboxRequest, ctx: RouteContext): Reply {
  const reference = requiredQuery(req.query, 'reference');
  const record = ctx.state.paymentStatuses.get(reference);
  if (!record) throw notFound(`reference: payment ${reference} not found`);
  return ok(record, 'Payment status retrieved successfully');
}

export const paymentLinkRoutes: readonly Route[] = [
  { method: 'GET', path: PROVIDER_PATHS.paymentLinkTransactions, handler: listTransactions },
  { method: 'GET', path: PROVIDER_PATHS.paymentLinks, handler: listLinks },
  { method: 'GET', path: PROVIDER_PATHS.paymentLinkPaymentStatus, handler: paymentStatus },
];
