import {
  BatchEnvelopeSchema,
  type BulkItemState,
  BulkPayoutItemIdSchema,
  CORRECTION_CSV_COLUMNS,
  type CorrectionAudit,
  CorrectionFieldsSchema,
  type CorrectionResult,
  CsvFormatError,
  MAX_BATCH_CORRECTIONS,
  type PendingCorrection,
  parseCorrectionsCsv,
} from '../../bulk-corrections/index.js';
import { clipText, FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import { ApiError, validationError } from '../errors.js';
import { failureOf, newest, omitted, presentApproval, principal } from '../presenters.js';
import { MAX_BODY_BYTES, optionalIdempotencyKeyOf, parseBody, parseQuery } from '../request.js';
import {
  AppliedCorrectionSchema,
  BulkItemDetailSchema,
  BulkItemPageSchema,
  type BulkItemResponse,
  HeldCorrectionSchema,
  PendingCorrectionSchema,
} from '../responses/bulk-item.js';
import { AcceptedCorrectionJobSchema, CorrectionJobSchema } from '../responses/correction-job.js';
import { type Answers, type Route, type RouteRequest, reply, route } from '../router.js';
import { CancelRequestSchema, PageCursorSchema, PageLimitSchema } from '../schemas.js';
import { jobLocation, presentAcceptedJob } from './correction-jobs.js';

function itemId(request: Pick<RouteRequest<never>, 'params'>): string {
  const parsed = BulkPayoutItemIdSchema.safeParse(request.params.id);
  if (!parsed.success) throw new ApiError(404, 'not-found', 'Not found', 'no bulk payout item has this id');
  return parsed.data;
}

const { word: WORD, name: NAME, text: TEXT } = FIELD_MAXIMA;

/** A field's value within the answer's maximum (the provider's earlier values are not ours to bound). */
const value = <V extends string | number | null>(v: V) => (typeof v === 'string' ? clipText(v, NAME) : v);
const reasonOf = (reason: string | null) => (reason === null ? null : clipText(reason, TEXT));
const valuesOf = <K extends string>(values: Readonly<Partial<Record<K, string | number>>>) =>
  Object.fromEntries(
    Object.entries<string | number | undefined>(values).map(([k, v]) => [k, v === undefined ? v : value(v)]),
  );

/** An item as answered: the provider's validation record and reason clipped to the schema's maxima. */
const presentItem = (item: BulkItemState): BulkItemResponse => ({
  bulkPayoutItemId: clipText(item.bulkPayoutItemId, WORD),
  isValid: item.record.isValid,
  reason: reasonOf(item.record.reason),
  record: {
    accountName: clipText(item.record.accountName, NAME),
    accountNumber: clipText(item.record.accountNumber, WORD),
    bankCode: clipText(item.record.bankCode, WORD),
    bankName: clipText(item.record.bankName, NAME),
    isValid: item.record.isValid,
    reason: reasonOf(item.record.reason),
    createdAt: clipText(item.record.createdAt, WORD),
  },
  values: valuesOf(item.values),
  updatedAt: item.updatedAt,
});

const presentChanges = (changes: CorrectionAudit['changes']) =>
  changes.map((change) => ({ ...change, from: value(change.from), to: value(change.to) }));

const presentAudit = (audit: CorrectionAudit) => ({
  ...audit,
  bulkPayoutItemId: clipText(audit.bulkPayoutItemId, WORD),
  actor: principal(audit.actor),
  ...(audit.approvedBy && { approvedBy: principal(audit.approvedBy) }),
  changes: presentChanges(audit.changes),
  ...(audit.provider && {
    provider: { isValid: audit.provider.isValid, reason: reasonOf(audit.provider.reason) },
  }),
  ...(audit.failure && {
    failure: failureOf(audit.failure),
  }),
});

const presentPending = ({ firstApproval, ...correction }: PendingCorrection) => ({
  ...correction,
  correctionId: clipText(correction.correctionId, WORD),
  bulkPayoutItemId: clipText(correction.bulkPayoutItemId, WORD),
  fields: valuesOf(correction.fields),
  changes: presentChanges(correction.changes),
  reason: clipText(correction.reason, TEXT),
  requestedBy: principal(correction.requestedBy),
  ...(correction.approvedBy && { approvedBy: principal(correction.approvedBy) }),
  ...(firstApproval && { firstApproval: presentApproval(firstApproval) }),
  ...(correction.cancelledBy && { cancelledBy: principal(correction.cancelledBy) }),
  ...(correction.cancelReason !== undefined && { cancelReason: clipText(correction.cancelReason, TEXT) }),
});

type Applied = Extract<CorrectionResult, { outcome: 'corrected' | 'still_invalid' }>;

/** A correction the provider saved: the item as it is now and what changed. */
function presentApplied(result: Applied) {
  return {
    outcome: result.outcome,
    isValid: result.item.record.isValid,
    reason: reasonOf(result.item.record.reason),
    item: presentItem(result.item),
    changes: presentChanges(result.audit.changes),
  };
}

/**
 * PATCH /bulk-payout-items/{id}: one correction. Field errors are a 400 before any provider call; a provider
 * refusal is a problem with the provider's message; `still_invalid` answers 200 with `isValid: false` and the
 * provider's reason: the change was saved there, the item is not fixed.
 */
async function correctOne(request: RouteRequest<'bulkCorrections' | 'correctionJobs'>) {
  const id = itemId(request);
  const body = parseBody(request.event, z.unknown());
  return answerCorrection(await request.ctx.bulkCorrections.correct(id, body, request.principal()));
}

function answerCorrection(result: CorrectionResult) {
  switch (result.outcome) {
    case 'invalid':
      throw validationError(result.issues);
    case 'provider_rejected':
      throw new ApiError(
        result.failure.status === 404 ? 404 : 422,
        'provider-rejected',
        'The provider refused the correction',
        result.failure.message,
      );
    case 'not_sent':
      throw new ApiError(
        503,
        'provider-unavailable',
        'The provider is unavailable',
        'nothing was sent; try again later',
      );
    case 'unknown':
      throw new ApiError(
        502,
        'outcome-unknown',
        'The provider did not confirm the correction',
        `${result.failure.message}; it may have been applied: check the item before correcting again`,
      );
    case 'paused':
      throw new ApiError(409, 'payouts-paused', 'Payouts are paused', result.failure.message);
    case 'cap_exceeded':
      throw new ApiError(
        409,
        'daily-cap-exceeded',
        'The daily cap would be exceeded',
        result.failure.message,
      );
    case 'pending_approval':
      return reply(202, { outcome: result.outcome, correction: presentPending(result.correction) });
    default:
      return reply(200, presentApplied(result));
  }
}

export const CorrectionIdSchema = z
  .string()
  .check(z.regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a correction id'));

/**
 * POST /bulk-payout-items/{id}/corrections/{correctionId}/approve: a second person approves a held money
 * change, which is then sent; answered like a PATCH.
 */
async function approveCorrection(request: RouteRequest<'bulkCorrections' | 'correctionJobs'>) {
  const id = itemId(request);
  const correctionId = heldCorrectionId(request);
  return answerCorrection(await request.ctx.bulkCorrections.approve(id, correctionId, request.principal()));
}

/** The `{correctionId}` of a held-correction command; one that cannot be an id is a correction not found. */
function heldCorrectionId(request: Pick<RouteRequest<never>, 'params'>): string {
  const parsed = CorrectionIdSchema.safeParse(request.params.correctionId);
  if (!parsed.success) {
    throw new ApiError(404, 'not-found', 'Not found', 'no correction of this item has this id');
  }
  return parsed.data;
}

/**
 * POST /bulk-payout-items/{id}/corrections/{correctionId}/cancel: anyone withdraws a held correction, which is then
 * never sent (it moves no money, so no second person is asked); optional `{ reason }`. 409 once it is approved or
 * cancelled, including when an approval's claim commits first.
 */
async function cancelCorrection(request: RouteRequest<'bulkCorrections' | 'correctionJobs'>) {
  const id = itemId(request);
  const correctionId = heldCorrectionId(request);
  const body = parseBody(request.event, CancelRequestSchema, {});
  const cancelled = await request.ctx.bulkCorrections.cancel(
    id,
    correctionId,
    request.principal(),
    body.reason,
  );
  return reply(200, presentPending(cancelled));
}

/**
 * POST /bulk-payout-items/corrections: JSON `{ corrections: [...] }` or a `text/csv` upload, accepted as a job.
 * Every row is validated first (a bad row refuses the batch: 400 naming the row and field, nothing stored or
 * sent); the job is stored and handed to the queue workers, and the answer is 202 with the job and its Location.
 * With an `Idempotency-Key`, a retry of the same request answers 200 (`Idempotent-Replayed: true`) with the job the
 * first one created, as it stands now, and queues nothing; the key with other rows is 409.
 */
async function correctMany(request: RouteRequest<'bulkCorrections' | 'correctionJobs'>) {
  const contentType = (request.event.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  let entries: readonly unknown[];
  if (contentType === 'text/csv') {
    const raw = request.event.body ?? '';
    const text = request.event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
    if (Buffer.byteLength(text) > MAX_BODY_BYTES) {
      throw validationError([{ path: '(body)', message: `must be at most ${MAX_BODY_BYTES} bytes` }]);
    }
    try {
      entries = parseCorrectionsCsv(text);
    } catch (error) {
      if (error instanceof CsvFormatError) throw validationError(error.issues);
      throw error;
    }
    if (entries.length === 0 || entries.length > MAX_BATCH_CORRECTIONS) {
      throw validationError([
        { path: '(body)', message: `must hold 1 to ${MAX_BATCH_CORRECTIONS} corrections` },
      ]);
    }
  } else {
    entries = parseBody(request.event, BatchEnvelopeSchema).corrections;
  }
  const { job, replayed } = await request.ctx.correctionJobs.submit(
    entries,
    contentType === 'text/csv' ? 'csv' : 'json',
    request.principal(),
    optionalIdempotencyKeyOf(request.event),
  );
  const location = { location: jobLocation(job.jobId) };
  if (replayed) return reply(200, presentAcceptedJob(job), { ...location, 'idempotent-replayed': 'true' });
  return reply(202, presentAcceptedJob(job), location);
}

/** `GET /bulk-payout-items`: items corrected here, newest change first. */
export const ListBulkItemsQuerySchema = z.lazy(() =>
  z.strictObject({
    isValid: z.optional(z.enum(['true', 'false'])),
    limit: z.optional(PageLimitSchema),
    cursor: z.optional(PageCursorSchema),
  }),
);

async function listItems(request: RouteRequest<'bulkCorrections' | 'correctionJobs'>) {
  const query = parseQuery(request.event, ListBulkItemsQuerySchema);
  const page = await request.ctx.bulkCorrections.list({
    limit: query.limit ?? 20,
    ...(query.isValid !== undefined && { isValid: query.isValid === 'true' }),
    ...(query.cursor !== undefined && { cursor: query.cursor }),
  });
  return reply(200, {
    items: page.items.map(presentItem),
    ...(page.nextCursor && { nextCursor: page.nextCursor }),
  });
}

async function getItem(request: RouteRequest<'bulkCorrections' | 'correctionJobs'>) {
  const { item, audit, corrections } = await request.ctx.bulkCorrections.get(itemId(request));
  return reply(200, {
    ...presentItem(item),
    audit: newest(audit).map(presentAudit),
    ...omitted('auditOmitted', audit.length),
    corrections: newest(corrections).map(presentPending),
    ...omitted('correctionsOmitted', corrections.length),
  });
}

const CORRECTION_PROBLEMS = [
  'validation',
  'unauthenticated',
  'not-found',
  'provider-rejected',
  'payouts-paused',
  'daily-cap-exceeded',
  'concurrent-modification',
  'outcome-unknown',
  'provider-unavailable',
] as const;

/** A single correction's answers: the same for a PATCH and for the approval of a held one. */
const correctionAnswers = {
  200: {
    description: 'sent and saved by the provider: `corrected`, or `still_invalid` with its reason',
    schema: AppliedCorrectionSchema,
  },
  202: {
    description: 'a money change held for a second person (`correction.correctionId`); nothing sent',
    schema: HeldCorrectionSchema,
  },
} as const;

/** A `text/csv` correction upload as the document describes it: its columns, from the parser's own list. */
function correctionsCsvSchema() {
  return z.string().check(
    z.describe(
      'RFC 4180 CSV: a header row naming the columns (any order, any subset that includes bulkPayoutItemId), then ' +
        `one correction per row (1 to ${MAX_BATCH_CORRECTIONS}); an empty cell leaves that field as it is. Columns: ` +
        Object.entries(CORRECTION_CSV_COLUMNS)
          .map(([column, meaning]) => `\`${column}\` (${meaning})`)
          .join(', '),
    ),
  );
}

export const bulkPayoutItemRoutes: readonly Route<Answers, 'bulkCorrections' | 'correctionJobs'>[] = [
  route({
    method: 'POST',
    path: '/bulk-payout-items/corrections',
    operationId: 'correctBulkPayoutItems',
    summary:
      'Correct many bulk payout items as a job: JSON `{ corrections }` or a text/csv upload. Every row is validated first: one bad row refuses the batch (400 naming `corrections[i].field`, or `row n.field` for a CSV), nothing stored or sent. The job is stored and handed to the queue workers; the answer (202, Location) comes before any provider call. 503 `not-enqueued`: the job is stored but not all of it reached the workers (requeue it). With an Idempotency-Key (optional), a retry of the same request answers the job it created and queues nothing; the key with other rows is 409',
    request: {
      idempotencyKey: 'optional',
      body: { schema: BatchEnvelopeSchema, csv: correctionsCsvSchema() },
    },
    cli: {
      words: ['bulk', 'corrections'],
      summary:
        'correct many items as a job: --csv FILE or a JSON { corrections } --body (202 with the job; with --key, a retry answers that job)',
    },
    role: 'requester',
    responses: {
      200: {
        description:
          'replay of the same Idempotency-Key and rows: the job the first request created, as it stands now; headers Idempotent-Replayed: true and Location. Nothing queued again',
        schema: CorrectionJobSchema,
      },
      202: {
        description:
          'accepted as a job (every row `queued`); header Location: /bulk-correction-jobs/{jobId}. No provider call was made yet',
        schema: AcceptedCorrectionJobSchema,
      },
    },
    problems: ['validation', 'unauthenticated', 'not-configured', 'not-enqueued', 'idempotency-conflict'],
    handler: correctMany,
  }),
  route({
    method: 'PATCH',
    path: '/bulk-payout-items/{id}',
    operationId: 'correctBulkPayoutItem',
    summary:
      'Correct one item. Changing the account or bank of an item that may be valid, or an amount at or above the approval threshold, is held (202) for a second person; above the per-payout maximum is a 400',
    request: { params: { id: BulkPayoutItemIdSchema }, body: { schema: CorrectionFieldsSchema } },
    cli: { words: ['bulk', 'correct'], summary: 'correct one bulk payout item from a JSON body' },
    role: 'requester',
    responses: correctionAnswers,
    problems: CORRECTION_PROBLEMS,
    handler: correctOne,
  }),
  route({
    method: 'GET',
    path: '/bulk-payout-items',
    operationId: 'listBulkPayoutItems',
    summary:
      'Items corrected here, newest change first (the provider offers no listing of bulk items: an item appears after its first correction)',
    request: { query: ListBulkItemsQuerySchema },
    cli: {
      words: ['bulk', 'list'],
      summary: 'items corrected here, newest change first (--query isValid=false)',
      list: true,
      query: ['limit'],
    },
    role: 'viewer',
    responses: { 200: { description: 'a page, newest change first', schema: BulkItemPageSchema } },
    problems: ['validation'],
    handler: listItems,
  }),
  route({
    method: 'GET',
    path: '/bulk-payout-items/{id}',
    operationId: 'getBulkPayoutItem',
    request: { params: { id: BulkPayoutItemIdSchema } },
    cli: { words: ['bulk', 'get'], summary: 'an item, its audit and held corrections' },
    role: 'viewer',
    responses: {
      200: { description: 'the item with its corrections and held changes', schema: BulkItemDetailSchema },
    },
    problems: ['not-found'],
    handler: getItem,
  }),
  route({
    method: 'POST',
    path: '/bulk-payout-items/{id}/corrections/{correctionId}/approve',
    operationId: 'approveBulkPayoutItemCorrection',
    summary:
      'A second person (never the requester) approves a held correction; it is then sent once and answered like a PATCH',
    request: { params: { id: BulkPayoutItemIdSchema, correctionId: CorrectionIdSchema } },
    cli: {
      words: ['bulk', 'approve'],
      summary: 'approve a held correction as the second person',
      confirmFrom: '/bulk-payout-items/{id}',
    },
    role: 'approver',
    responses: correctionAnswers,
    problems: [...CORRECTION_PROBLEMS, 'approval-forbidden', 'invalid-transition'],
    handler: approveCorrection,
  }),
  route({
    method: 'POST',
    path: '/bulk-payout-items/{id}/corrections/{correctionId}/cancel',
    operationId: 'cancelBulkPayoutItemCorrection',
    summary:
      'Anyone withdraws a correction held for approval (pending_approval only, else 409); it is never sent, and leaves the approvals queue',
    request: {
      params: { id: BulkPayoutItemIdSchema, correctionId: CorrectionIdSchema },
      body: { schema: CancelRequestSchema, required: false },
    },
    cli: {
      words: ['bulk', 'cancel'],
      summary: 'withdraw a held correction before anyone approves it; it is never sent',
      bodyFlags: ['reason'],
    },
    role: 'requester',
    responses: {
      200: {
        description:
          'withdrawn (`status: cancelled`, `cancelledBy`, `cancelledAt`, `cancelReason`); never sent',
        schema: PendingCorrectionSchema,
      },
    },
    problems: ['validation', 'unauthenticated', 'not-found', 'invalid-transition'],
    handler: cancelCorrection,
  }),
];
