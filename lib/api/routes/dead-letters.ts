import { DEAD_LETTER_STATUSES, type DeadLetter } from '../../events/dead-letter.js';
import { clientText } from '../../shared/text.js';
import * as z from '../../shared/zod.js';
import { ApiError } from '../errors.js';
import { parseBody, parseQuery } from '../request.js';
import type { Route, RouteRequest, RouteResult } from '../router.js';
import { ListPayoutsQuerySchema } from '../schemas.js';

/** `GET /dead-letters`: newest first, by status, cursor-paginated. */
export const ListDeadLettersQuerySchema = z.strictObject({
  status: z.optional(z.enum(DEAD_LETTER_STATUSES)),
  limit: ListPayoutsQuerySchema.shape.limit,
  cursor: ListPayoutsQuerySchema.shape.cursor,
});

/** Body of `POST /dead-letters/{id}/discard`. */
export const DiscardDeadLetterRequestSchema = z.strictObject({
  reason: clientText({ max: 500 }),
});

const DeadLetterIdSchema = z.string().check(z.regex(/^[0-9A-HJKMNP-TV-Z]{26}$/));

function letterId(request: RouteRequest): string {
  const parsed = DeadLetterIdSchema.safeParse(request.params.id);
  if (!parsed.success) throw new ApiError(404, 'not-found', 'Not found', 'no dead letter has this id');
  return parsed.data;
}

const present = (letter: DeadLetter) => letter;

async function listDeadLetters(request: RouteRequest): Promise<RouteResult> {
  const query = parseQuery(request.event, ListDeadLettersQuerySchema);
  const page = await request.ctx.deadLetters.list({ ...query, limit: query.limit ?? 20 });
  return {
    status: 200,
    body: { items: page.items.map(present), ...(page.nextCursor && { nextCursor: page.nextCursor }) },
  };
}

async function getDeadLetter(request: RouteRequest): Promise<RouteResult> {
  return { status: 200, body: present(await request.ctx.deadLetters.get(letterId(request))) };
}

/**
 * POST /dead-letters/{id}/replay: the event goes to its handler again. 200 with `delivered: true` when taken;
 * 422 when it is refused again (the letter stays open, with this replay recorded).
 */
async function replay(request: RouteRequest): Promise<RouteResult> {
  parseBody(request.event, z.strictObject({}), {});
  const result = await request.ctx.deadLetters.replay(letterId(request), request.principal());
  return {
    status: result.delivered ? 200 : 422,
    body: { delivered: result.delivered, letter: present(result.letter) },
  };
}

async function discard(request: RouteRequest): Promise<RouteResult> {
  const { reason } = parseBody(request.event, DiscardDeadLetterRequestSchema);
  return {
    status: 200,
    body: present(await request.ctx.deadLetters.discard(letterId(request), request.principal(), reason)),
  };
}

export const deadLetterRoutes: readonly Route[] = [
  { method: 'GET', path: '/dead-letters', handler: listDeadLetters },
  { method: 'GET', path: '/dead-letters/{id}', handler: getDeadLetter },
  { method: 'POST', path: '/dead-letters/{id}/replay', handler: replay },
  { method: 'POST', path: '/dead-letters/{id}/discard', handler: discard },
];
