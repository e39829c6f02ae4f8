import * as z from '../../shared/zod.js';
import { APPROVAL_KINDS, waitingApprovals } from '../approvals.js';
import { validationError } from '../errors.js';
import { parseQuery } from '../request.js';
import type { Route, RouteRequest, RouteResult } from '../router.js';
import { ListPayoutsQuerySchema } from '../schemas.js';

/** `GET /approvals`: what waits for a second person that the caller may approve. */
export const ListApprovalsQuerySchema = z.strictObject({
  /** One kind only; required with `cursor` (each kind pages on its own). */
  kind: z.optional(z.enum(APPROVAL_KINDS)),
  limit: ListPayoutsQuerySchema.shape.limit,
  cursor: ListPayoutsQuerySchema.shape.cursor,
});

async function listApprovals(request: RouteRequest): Promise<RouteResult> {
  const query = parseQuery(request.event, ListApprovalsQuerySchema);
  if (query.cursor !== undefined && query.kind === undefined) {
    throw validationError([{ path: 'kind', message: 'is required with cursor: each kind pages on its own' }]);
  }
  const page = await waitingApprovals(request.ctx, request.principal(), {
    ...query,
    limit: query.limit ?? 20,
  });
  return { status: 200, body: page };
}

export const approvalRoutes: readonly Route[] = [
  { method: 'GET', path: '/approvals', handler: listApprovals },
];
