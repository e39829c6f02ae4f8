import { DEAD_LETTER_EVENT_PREVIEW, DEAD_LETTER_STATUSES, type DeadLetter } from '../../events/index.js';
import { clipText, FIELD_MAXIMA } from '../../shared/field-limits.js';
import { clientText } from '../../shared/text.js';
import * as z from '../../shared/zod.js';
import { ApiError } from '../errors.js';
import { failureOf, issueOf, newest, omitted, principal } from '../presenters.js';
import { parseBody, parseQuery } from '../request.js';
import {
  DEAD_LETTER_EVENT_MAX_BYTES,
  DEAD_LETTER_PREVIEW,
  DeadLetterPageSchema,
  DeadLetterResponseSchema,
  type DeadLetterSummarySchema,
  ReplayDeliveredSchema,
  ReplayRefusedSchema,
} from '../responses/dead-letter.js';
import { type Answers, type Route, type RouteRequest, reply, route } from '../router.js';
import { PageCursorSchema, PageLimitSchema, ResourceIdSchema } from '../schemas.js';

/** `GET /dead-letters`: newest first, by status, cursor-paginated. */
export const ListDeadLettersQuerySchema = z.lazy(() =>
  z.strictObject({
    status: z.optional(z.enum(DEAD_LETTER_STATUSES)),
    limit: z.optional(PageLimitSchema),
    cursor: z.optional(PageCursorSchema),
  }),
);

/** Body of `POST /dead-letters/{id}/discard`. */
export const DiscardDeadLetterRequestSchema = z.lazy(() =>
  z.strictObject({
    reason: clientText({ max: 500 }),
  }),
);

const DeadLetterIdSchema = z.lazy(() => z.string().check(z.regex(/^[0-9A-HJKMNP-TV-Z]{26}$/)));

function letterId(request: RouteRequest<'deadLetters'>): string {
  const parsed = DeadLetterIdSchema.safeParse(request.params.id);
  if (!parsed.success) throw new ApiError(404, 'not-found', 'Not found', 'no dead letter has this id');
  return parsed.data;
}

const { word: WORD, text: TEXT } = FIELD_MAXIMA;

/**
 * What the letter holds of its event: its JSON and size, or, for one too large to keep, the start of its JSON as
 * kept and the size it had. That start is then the letter's `event` (a string) and must never be answered as the
 * event or measured as one.
 */
interface KeptEvent {
  readonly json: string;
  readonly bytes: number;
  /** False for a letter too large to keep: `json` is then the start it kept. */
  readonly whole: boolean;
}

function keptEvent(letter: DeadLetter): KeptEvent {
  if (letter.eventTooLarge) {
    const json = typeof letter.event === 'string' ? letter.event : '';
    return { json, bytes: letter.eventTooLarge.bytes, whole: false };
  }
  const json = JSON.stringify(letter.event) ?? 'null';
  return { json, bytes: Buffer.byteLength(json), whole: true };
}

/** The letter's fields both answers give, clipped: its error with the first `issues` fields, its event's size. */
function summaryOf(letter: DeadLetter, event: KeptEvent, issues: number) {
  const { error } = letter;
  return {
    id: letter.id,
    ...(letter.detailType !== undefined && { detailType: clipText(letter.detailType, WORD) }),
    error: {
      name: clipText(error.name, WORD),
      ...failureOf(error),
      issues: error.issues.slice(0, issues).map(issueOf),
      // Those the letter itself left out (it keeps the first 50) are left out of the answer too.
      ...omitted('issuesOmitted', error.issues.length + (error.issuesOmitted ?? 0), issues),
    },
    at: letter.at,
    status: letter.status,
    eventBytes: event.bytes,
  };
}

const preview = (eventJson: string, max: number) => ({ eventPreview: clipText(eventJson, max) });

/** The detail's event: whole when the letter has it and it is within its maximum, else the start of its JSON. */
function eventOrPreview(letter: DeadLetter, event: KeptEvent) {
  if (!event.whole) return preview(event.json, DEAD_LETTER_EVENT_PREVIEW);
  return event.bytes <= DEAD_LETTER_EVENT_MAX_BYTES
    ? { event: letter.event }
    : preview(event.json, DEAD_LETTER_PREVIEW);
}

/** In a listing: the error and the start of the event; the detail has the whole. */
export function presentSummary(letter: DeadLetter): z.output<typeof DeadLetterSummarySchema> {
  const event = keptEvent(letter);
  return { ...summaryOf(letter, event, FIELD_MAXIMA.rowIssues), ...preview(event.json, DEAD_LETTER_PREVIEW) };
}

/**
 * The whole letter: the event as delivered (within DEAD_LETTER_EVENT_MAX_BYTES), else the start of its JSON (all
 * of it a letter too large to keep has); the newest actions.
 */
export function present(letter: DeadLetter): z.output<typeof DeadLetterResponseSchema> {
  const event = keptEvent(letter);
  const summary = summaryOf(letter, event, FIELD_MAXIMA.issues);
  return {
    ...summary,
    ...eventOrPreview(letter, event),
    actions: newest(letter.actions).map((action) => ({
      action: action.action,
      by: principal(action.by),
      at: action.at,
      note: clipText(action.note, TEXT),
    })),
    ...omitted('actionsOmitted', letter.actions.length),
  };
}

async function listDeadLetters(request: RouteRequest<'deadLetters'>) {
  const query = parseQuery(request.event, ListDeadLettersQuerySchema);
  const page = await request.ctx.deadLetters.list({ ...query, limit: query.limit ?? 20 });
  return reply(200, {
    items: page.items.map(presentSummary),
    ...(page.nextCursor && { nextCursor: page.nextCursor }),
  });
}

async function getDeadLetter(request: RouteRequest<'deadLetters'>) {
  return reply(200, present(await request.ctx.deadLetters.get(letterId(request))));
}

/**
 * POST /dead-letters/{id}/replay: the event goes to its handler again. 200 with `delivered: true` when taken;
 * 422 when it is refused again (the letter stays open, with this replay recorded); 409 when the letter is not
 * open, another replay is delivering it, or it kept too little of its event to deliver.
 */
async function replay(request: RouteRequest<'deadLetters'>) {
  parseBody(request.event, z.strictObject({}), {});
  // A payout the event asks for is sent here only within the request's send window, as by POST /payouts.
  const result = await request.ctx.deadLetters.replay(letterId(request), request.principal(), {
    sendWindow: request.deadline.sendWindow,
  });
  const letter = present(result.letter);
  return result.delivered
    ? reply(200, { delivered: true as const, letter })
    : reply(422, { delivered: false as const, letter });
}

async function discard(request: RouteRequest<'deadLetters'>) {
  const { reason } = parseBody(request.event, DiscardDeadLetterRequestSchema);
  return reply(
    200,
    present(await request.ctx.deadLetters.discard(letterId(request), request.principal(), reason)),
  );
}

export const deadLetterRoutes: readonly Route<Answers, 'deadLetters'>[] = [
  route({
    method: 'GET',
    path: '/dead-letters',
    operationId: 'listDeadLetters',
    summary: 'Inbound events no handler could accept, newest first, by status',
    request: { query: ListDeadLettersQuerySchema },
    cli: {
      words: ['dead-letters', 'list'],
      summary: 'inbound events no handler could accept, newest first',
      list: true,
      query: ['status', 'limit'],
    },
    role: 'viewer',
    responses: {
      200: {
        description: 'a page, newest first: each letter its error and the start of its event',
        schema: DeadLetterPageSchema,
      },
    },
    problems: ['validation'],
    handler: listDeadLetters,
  }),
  route({
    method: 'GET',
    path: '/dead-letters/{id}',
    operationId: 'getDeadLetter',
    request: { params: { id: ResourceIdSchema } },
    cli: { words: ['dead-letters', 'get'], summary: 'one dead letter and what was done with it' },
    role: 'viewer',
    responses: { 200: { description: 'the dead letter', schema: DeadLetterResponseSchema } },
    problems: ['not-found'],
    handler: getDeadLetter,
  }),
  route({
    method: 'POST',
    path: '/dead-letters/{id}/replay',
    operationId: 'replayDeadLetter',
    summary:
      'Deliver the event to its handler again (the same gate and idempotency as the rule). 200 when taken; 422 when refused again (the letter stays open, the replay recorded)',
    request: { params: { id: ResourceIdSchema } },
    cli: { words: ['dead-letters', 'replay'], summary: 'deliver the event to its handler again' },
    role: 'admin',
    responses: {
      200: {
        description: 'the handler took the event; the letter is replayed',
        schema: ReplayDeliveredSchema,
      },
      422: {
        description: 'the handler refused the event again: the letter stays open, with this replay recorded',
        schema: ReplayRefusedSchema,
      },
    },
    problems: ['validation', 'unauthenticated', 'not-found', 'invalid-transition'],
    handler: replay,
  }),
  route({
    method: 'POST',
    path: '/dead-letters/{id}/discard',
    operationId: 'discardDeadLetter',
    request: { params: { id: ResourceIdSchema }, body: { schema: DiscardDeadLetterRequestSchema } },
    cli: {
      words: ['dead-letters', 'discard'],
      summary: 'put a dead letter aside for good (--reason)',
      bodyFlags: ['reason'],
    },
    role: 'admin',
    responses: { 200: { description: 'discarded, with the reason', schema: DeadLetterResponseSchema } },
    problems: ['validation', 'unauthenticated', 'not-found', 'invalid-transition'],
    handler: discard,
  }),
];
