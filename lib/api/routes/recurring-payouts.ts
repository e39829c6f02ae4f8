import {
  CreateRecurrenceRequestSchema,
  type HistoryEntry,
  isCalendarDate,
  RECURRENCE_STATUSES,
  type Recurrence,
  type RecurrenceStatus,
  type RecurrenceView,
} from '../../recurrence/index.js';
import { encodeCursor, readCursor } from '../../shared/cursor.js';
import { clipText, FIELD_MAXIMA } from '../../shared/field-limits.js';
import { clientText } from '../../shared/text.js';
import * as z from '../../shared/zod.js';
import { ApiError } from '../errors.js';
import { newest, omitted, presentApproval, presentRejection, principal } from '../presenters.js';
import { CHANGE_PROBLEMS, DECISION_PROBLEMS } from '../problem-types.js';
import { idempotencyKeyOf, idParam, parseBody, parseQuery } from '../request.js';
import {
  RecurrenceHistoryPageSchema,
  RecurringPayoutPageSchema,
  type RecurringPayoutResponse,
  RecurringPayoutResponseSchema,
  type RecurringPayoutView,
  RecurringPayoutViewSchema,
} from '../responses/recurring-payout.js';
import { type Answers, type Route, type RouteRequest, reply, route } from '../router.js';
import {
  ApproveRequestSchema,
  CancelRequestSchema,
  PauseRequestSchema,
  pageOnlyQuery,
  queryInt,
  RejectRequestSchema,
  ResourceIdSchema,
  ResumeRequestSchema,
} from '../schemas.js';

export const ListRecurrencesQuerySchema = z.lazy(() =>
  z.strictObject({
    status: z.optional(z.enum(RECURRENCE_STATUSES as [RecurrenceStatus, ...RecurrenceStatus[]])),
    /** 1 to 100, default 20. */
    limit: z.optional(queryInt(1, 100, 'page size, 1 to 100, default 20')),
    cursor: z.optional(
      z
        .string()
        .check(
          z.minLength(1),
          z.maxLength(2048),
          z.describe(
            'opaque: the nextCursor of the previous page, with the same status; anything else is a 400 naming cursor',
          ),
        ),
    ),
  }),
);

export const SkipOccurrenceRequestSchema = z.lazy(() =>
  z.strictObject({
    reason: z.optional(clientText({ max: 200 })),
  }),
);

const { word: WORD, text: TEXT, audit: NEWEST } = FIELD_MAXIMA;

/** A recurring payout as the API shows it: the payout fields at the top level, the rule under `schedule`. */
export function presentRecurrence(recurrence: Recurrence): RecurringPayoutResponse {
  const { type, amount, currency, narration, metadata, ...instruction } = recurrence.template;
  return {
    id: recurrence.id,
    status: recurrence.status,
    ...(recurrence.statusReason && { statusReason: clipText(recurrence.statusReason, TEXT) }),
    type,
    amount,
    currency,
    // The template was refused above these maxima (the payout's own schema); clipped all the same, as it is answered.
    narration: clipText(narration, FIELD_MAXIMA.name),
    ...instruction,
    ...(metadata && { metadata }),
    schedule: {
      ...recurrence.rule,
      timeOfDay: clipText(recurrence.rule.timeOfDay, WORD),
      timeZone: clipText(recurrence.rule.timeZone, WORD),
    },
    ...(recurrence.nextOccurrenceAt && {
      nextOccurrence: { localDate: recurrence.nextLocalDate, at: recurrence.nextOccurrenceAt },
    }),
    // Sorted dates: the latest are the ones still ahead.
    skippedDates: newest(recurrence.skippedDates),
    idempotencyKey: clipText(recurrence.idempotencyKey, FIELD_MAXIMA.id),
    createdBy: principal(recurrence.createdBy),
    ...(recurrence.approvedBy && { approvedBy: principal(recurrence.approvedBy) }),
    ...(recurrence.firstApproval && { firstApproval: presentApproval(recurrence.firstApproval) }),
    ...(recurrence.rejection && { rejection: presentRejection(recurrence.rejection) }),
    createdAt: recurrence.createdAt,
    updatedAt: recurrence.updatedAt,
  };
}

function presentHistoryEntry(entry: HistoryEntry) {
  return {
    localDate: entry.localDate,
    at: entry.at,
    state: entry.state,
    ...(entry.payoutId && { payoutId: entry.payoutId }),
    ...(entry.generation && entry.generation > 1 && { generation: entry.generation }),
    ...(entry.payoutStatus && { payoutStatus: entry.payoutStatus }),
    ...(entry.reason && { reason: clipText(entry.reason, TEXT) }),
    recordedAt: entry.recordedAt,
  };
}

function presentView(view: RecurrenceView): RecurringPayoutView {
  return {
    ...presentRecurrence(view.recurrence),
    upcoming: view.upcoming
      .slice(0, NEWEST)
      .map((o) => ({ localDate: o.localDate, at: o.at, skipped: o.skipped })),
    // Newest first: the first ones are the newest.
    history: view.history.slice(0, NEWEST).map(presentHistoryEntry),
    ...(view.historyBefore && { historyNextCursor: encodeCursor({ before: view.historyBefore }) }),
    // `committed` on every event, not only `false` on a provisional one: no reader has to know that a missing
    // field means the command took effect.
    audit: newest(view.audit).map(({ recurrenceId: _id, committed, ...event }) => ({
      ...event,
      actor: principal(event.actor),
      reason: clipText(event.reason, TEXT),
      committed,
    })),
    ...omitted('auditOmitted', view.audit.length),
  };
}

/** `GET /recurring-payouts/{id}/history`: what became of every occurrence, newest first, page by page. */
export const HistoryPageQuerySchema = pageOnlyQuery('page size, 1 to 100, default 50');

/** Where a page of the history stopped, as its cursor carries it: the local date the next page starts before. */
const HistoryCursorSchema = z.lazy(() =>
  z.strictObject({
    before: z.string().check(z.refine(isCalendarDate, 'must be a calendar date')),
  }),
);

async function getHistory(request: RouteRequest<'recurrences'>) {
  const query = parseQuery(request.event, HistoryPageQuerySchema);
  const position = readCursor(query.cursor, HistoryCursorSchema);
  const page = await request.ctx.recurrences.history(idParam(request), {
    limit: query.limit ?? 50,
    ...(position && { before: position.before }),
  });
  return reply(200, {
    items: page.entries.map(presentHistoryEntry),
    ...(page.before && { nextCursor: encodeCursor({ before: page.before }) }),
  });
}

/** POST /recurring-payouts: recorded once per `Idempotency-Key`; occurrences are paid by the sweeper. */
async function createRecurrence(request: RouteRequest<'recurrences'>) {
  const idempotencyKey = idempotencyKeyOf(request.event);
  const body = parseBody(request.event, CreateRecurrenceRequestSchema);
  const { recurrence, replayed } = await request.ctx.recurrences.create({
    request: body,
    idempotencyKey,
    actor: request.principal(),
  });
  const view = presentView(await request.ctx.recurrences.view(recurrence.id));
  if (replayed) return reply(200, view, { 'idempotent-replayed': 'true' });
  return reply(201, view, { location: `/recurring-payouts/${recurrence.id}` });
}

async function getRecurrence(request: RouteRequest<'recurrences'>) {
  return reply(200, presentView(await request.ctx.recurrences.view(idParam(request))));
}

async function listRecurrences(request: RouteRequest<'recurrences'>) {
  const query = parseQuery(request.event, ListRecurrencesQuerySchema);
  const page = await request.ctx.recurrences.list({
    limit: query.limit ?? 20,
    ...(query.status && { status: query.status }),
    ...(query.cursor && { cursor: query.cursor }),
  });
  return reply(200, {
    items: page.items.map(presentRecurrence),
    ...(page.nextCursor && { nextCursor: page.nextCursor }),
  });
}

/** POST /recurring-payouts/{id}/approve: a second person (not the creator) approves a rule at or above the threshold. */
async function approve(request: RouteRequest<'recurrences'>) {
  const id = idParam(request);
  parseBody(request.event, ApproveRequestSchema, {});
  await request.ctx.recurrences.approve(id, request.principal());
  return reply(200, presentView(await request.ctx.recurrences.view(id)));
}

/** POST /recurring-payouts/{id}/reject: a second person refuses a rule waiting for approval; it ends cancelled. */
async function reject(request: RouteRequest<'recurrences'>) {
  const id = idParam(request);
  const { reason } = parseBody(request.event, RejectRequestSchema);
  await request.ctx.recurrences.reject(id, request.principal(), reason);
  return reply(200, presentView(await request.ctx.recurrences.view(id)));
}

async function pause(request: RouteRequest<'recurrences'>) {
  const id = idParam(request);
  const body = parseBody(request.event, PauseRequestSchema, {});
  return reply(
    200,
    presentRecurrence(await request.ctx.recurrences.pause(id, request.principal(), body.reason)),
  );
}

async function resume(request: RouteRequest<'recurrences'>) {
  const id = idParam(request);
  parseBody(request.event, ResumeRequestSchema, {});
  return reply(200, presentRecurrence(await request.ctx.recurrences.resume(id, request.principal())));
}

async function cancel(request: RouteRequest<'recurrences'>) {
  const id = idParam(request);
  const body = parseBody(request.event, CancelRequestSchema, {});
  return reply(
    200,
    presentRecurrence(await request.ctx.recurrences.cancel(id, request.principal(), body.reason)),
  );
}

/** POST /recurring-payouts/{id}/occurrences/{localDate}/skip */
async function skip(request: RouteRequest<'recurrences'>) {
  const id = idParam(request);
  const localDate = request.params.localDate ?? '';
  if (!isCalendarDate(localDate)) {
    throw new ApiError(400, 'validation', 'The request is invalid', 'localDate: must be a date YYYY-MM-DD', [
      { path: 'localDate', message: 'must be a date YYYY-MM-DD' },
    ]);
  }
  const body = parseBody(request.event, SkipOccurrenceRequestSchema, {});
  await request.ctx.recurrences.skip(id, localDate, request.principal(), body.reason);
  return reply(200, presentView(await request.ctx.recurrences.view(id)));
}

const view = (description: string) => ({ 200: { description, schema: RecurringPayoutViewSchema } });
const recurrence = (description: string) => ({ 200: { description, schema: RecurringPayoutResponseSchema } });

export const recurringPayoutRoutes: readonly Route<Answers, 'recurrences'>[] = [
  route({
    method: 'POST',
    path: '/recurring-payouts',
    operationId: 'createRecurringPayout',
    summary:
      'Create a recurring payout; its occurrences become scheduled payouts. Above the per-payout maximum: 400 naming `amount`, nothing stored. At or above the approval threshold: `pending_approval`.',
    request: { idempotencyKey: 'required', body: { schema: CreateRecurrenceRequestSchema } },
    cli: { words: ['recurring', 'create'], summary: 'create a recurring payout from a JSON body' },
    role: 'requester',
    responses: {
      201: { description: 'recorded; header Location', schema: RecurringPayoutViewSchema },
      200: {
        description: 'replay of the same key and body; header Idempotent-Replayed: true',
        schema: RecurringPayoutViewSchema,
      },
    },
    problems: ['validation', 'unauthenticated', 'idempotency-conflict'],
    handler: createRecurrence,
  }),
  route({
    method: 'GET',
    path: '/recurring-payouts',
    operationId: 'listRecurringPayouts',
    request: { query: ListRecurrencesQuerySchema },
    cli: {
      words: ['recurring', 'list'],
      summary: 'list recurring payouts',
      list: true,
      query: ['status', 'limit'],
    },
    role: 'viewer',
    responses: { 200: { description: 'a page, newest first', schema: RecurringPayoutPageSchema } },
    problems: ['validation'],
    handler: listRecurrences,
  }),
  route({
    method: 'GET',
    path: '/recurring-payouts/{id}',
    operationId: 'getRecurringPayout',
    request: { params: { id: ResourceIdSchema } },
    cli: { words: ['recurring', 'get'], summary: 'a rule, its next occurrences and history' },
    role: 'viewer',
    responses: view('the recurring payout with its coming occurrences, history and audit'),
    problems: ['not-found'],
    handler: getRecurrence,
  }),
  route({
    method: 'GET',
    path: '/recurring-payouts/{id}/history',
    operationId: 'getRecurringPayoutHistory',
    summary:
      'What became of every occurrence of a recurring payout, newest first, page by page (`GET /recurring-payouts/{id}` holds the newest 50 and, when there are more, `historyNextCursor` to go on from here)',
    request: { params: { id: ResourceIdSchema }, query: HistoryPageQuerySchema },
    cli: {
      words: ['recurring', 'history'],
      summary: 'what became of every occurrence, newest first (--all for every page)',
      list: true,
      query: ['limit'],
    },
    role: 'viewer',
    responses: {
      200: {
        description: 'a page of the history, newest first: what became of each occurrence',
        schema: RecurrenceHistoryPageSchema,
      },
    },
    problems: ['validation', 'not-found'],
    handler: getHistory,
  }),
  route({
    method: 'POST',
    path: '/recurring-payouts/{id}/approve',
    operationId: 'approveRecurringPayout',
    summary:
      'Approve a recurring payout waiting in `pending_approval` (never by its creator, never by a system principal); occurrences whose time passed while it waited are recorded as skipped',
    request: { params: { id: ResourceIdSchema }, body: { schema: ApproveRequestSchema, required: false } },
    cli: {
      words: ['recurring', 'approve'],
      summary: 'approve a rule at or above the approval threshold as the second person',
      confirmFrom: '/recurring-payouts/{id}',
    },
    role: 'approver',
    responses: view('approved: active'),
    problems: DECISION_PROBLEMS,
    handler: approve,
  }),
  route({
    method: 'POST',
    path: '/recurring-payouts/{id}/reject',
    operationId: 'rejectRecurringPayout',
    summary:
      'Reject a rule waiting for approval, with the reason (never by its creator, who cancels instead): it ends `cancelled` with its `rejection`; none of its occurrences is ever paid',
    request: { params: { id: ResourceIdSchema }, body: { schema: RejectRequestSchema } },
    cli: {
      words: ['recurring', 'reject'],
      summary: 'reject a rule waiting for approval, as the second person, with --reason; it is never paid',
      bodyFlags: ['reason'],
      confirmFrom: '/recurring-payouts/{id}',
    },
    role: 'approver',
    responses: view('rejected: `cancelled` with its `rejection` (who, why, when); never paid'),
    problems: DECISION_PROBLEMS,
    handler: reject,
  }),
  route({
    method: 'POST',
    path: '/recurring-payouts/{id}/pause',
    operationId: 'pauseRecurringPayout',
    request: { params: { id: ResourceIdSchema }, body: { schema: PauseRequestSchema, required: false } },
    cli: { words: ['recurring', 'pause'], summary: 'pause a rule', bodyFlags: ['reason'] },
    role: 'requester',
    responses: recurrence('paused'),
    problems: CHANGE_PROBLEMS,
    handler: pause,
  }),
  route({
    method: 'POST',
    path: '/recurring-payouts/{id}/resume',
    operationId: 'resumeRecurringPayout',
    request: { params: { id: ResourceIdSchema }, body: { schema: ResumeRequestSchema, required: false } },
    cli: { words: ['recurring', 'resume'], summary: 'resume a rule' },
    role: 'requester',
    responses: recurrence('active again'),
    problems: CHANGE_PROBLEMS,
    handler: resume,
  }),
  route({
    method: 'POST',
    path: '/recurring-payouts/{id}/cancel',
    operationId: 'cancelRecurringPayout',
    request: { params: { id: ResourceIdSchema }, body: { schema: CancelRequestSchema, required: false } },
    cli: { words: ['recurring', 'cancel'], summary: 'end a rule for good', bodyFlags: ['reason'] },
    role: 'requester',
    responses: recurrence('cancelled'),
    problems: CHANGE_PROBLEMS,
    handler: cancel,
  }),
  route({
    method: 'POST',
    path: '/recurring-payouts/{id}/occurrences/{localDate}/skip',
    operationId: 'skipOccurrence',
    summary: 'Skip one occurrence (its Lagos calendar date)',
    request: {
      params: { id: ResourceIdSchema, localDate: z.iso.date() },
      body: { schema: SkipOccurrenceRequestSchema, required: false },
    },
    cli: { words: ['recurring', 'skip'], summary: 'skip one occurrence', bodyFlags: ['reason'] },
    role: 'requester',
    responses: view('the occurrence is skipped'),
    problems: CHANGE_PROBLEMS,
    handler: skip,
  }),
];
