import { clipText, FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import { APPROVAL_KINDS, waitingApprovals } from '../approvals.js';
import { validationError } from '../errors.js';
import { presentApproval, principal } from '../presenters.js';
import { parseQuery } from '../request.js';
import { ApprovalsPageSchema } from '../responses/approvals.js';
import { type Answers, type Route, type RouteRequest, reply, route } from '../router.js';
import { PageCursorSchema, PageLimitSchema } from '../schemas.js';

/** `GET /approvals`: what waits for a second person that the caller may approve. */
export const ListApprovalsQuerySchema = z.lazy(() =>
  z.strictObject({
    /** One kind only; required with `cursor` (each kind pages on its own). */
    kind: z.optional(z.enum(APPROVAL_KINDS)),
    limit: z.optional(PageLimitSchema),
    cursor: z.optional(PageCursorSchema),
  }),
);

async function listApprovals(request: RouteRequest<'approvals'>) {
  const query = parseQuery(request.event, ListApprovalsQuerySchema);
  if (query.cursor !== undefined && query.kind === undefined) {
    throw validationError([{ path: 'kind', message: 'is required with cursor: each kind pages on its own' }]);
  }
  const page = await waitingApprovals(request.ctx.approvals, request.principal(), {
    ...query,
    limit: query.limit ?? 20,
  });
  return reply(200, {
    items: page.items.map(({ firstApproval, ...item }) => ({
      ...item,
      id: clipText(item.id, FIELD_MAXIMA.id),
      requestedBy: principal(item.requestedBy),
      ...(firstApproval && { firstApproval: presentApproval(firstApproval) }),
      // The summary quotes narrations, notes and the changes asked for: clipped to the answer's maximum.
      summary: clipText(item.summary, FIELD_MAXIMA.text),
      approve: { method: item.approve.method, path: clipText(item.approve.path, FIELD_MAXIMA.id) },
      ...(item.reject && {
        reject: { method: item.reject.method, path: clipText(item.reject.path, FIELD_MAXIMA.id) },
      }),
    })),
    nextCursors: page.nextCursors,
  });
}

export const approvalRoutes: readonly Route<Answers, 'approvals'>[] = [
  route({
    method: 'GET',
    path: '/approvals',
    operationId: 'listApprovals',
    summary:
      'Money instructions waiting for a second person that the caller may approve (all but their own requests, by identity): payouts, refunds and held bulk-item corrections, newest first, each with the call that approves it',
    request: { query: ListApprovalsQuerySchema },
    cli: {
      words: ['approvals', 'list'],
      summary: 'what waits for a second person that you may approve (not your own requests)',
      query: ['limit'],
    },
    role: 'viewer',
    responses: {
      200: {
        description: 'one page of each kind (or of `kind`), newest first, without the caller’s own requests',
        schema: ApprovalsPageSchema,
      },
    },
    problems: ['validation', 'unauthenticated'],
    handler: listApprovals,
  }),
];
