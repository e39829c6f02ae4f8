import { JobItemStatus, JobStatus } from '../bulk-corrections/job-model.js';
import { BatchEnvelopeSchema, CorrectionFieldsSchema } from '../bulk-corrections/schemas.js';
import { CreatePayoutRequestSchema, IdempotencyKeySchema } from '../payouts/schemas.js';
import { OccurrenceState, RECURRENCE_ACTIONS, RECURRENCE_STATUSES } from '../recurrence/model.js';
import { CreateRecurrenceRequestSchema } from '../recurrence/schemas.js';
import { CreateRefundRequestSchema, RefundStatus } from '../refunds/model.js';
import * as z from '../shared/zod.js';
import { LOCAL_PRINCIPAL_HEADER } from './principal.js';
import { ListApprovalsQuerySchema } from './routes/approvals.js';
import { ListBulkItemsQuerySchema } from './routes/bulk-payout-items.js';
import { ListCorrectionJobsQuerySchema, RESULTS_CSV_COLUMNS } from './routes/correction-jobs.js';
import { DiscardDeadLetterRequestSchema, ListDeadLettersQuerySchema } from './routes/dead-letters.js';
import { FuturePayoutsQuerySchema } from './routes/future-payouts.js';
import { InstantSettlementRequestSchema } from './routes/instant-settlements.js';
import { ProviderScheduleQuerySchema } from './routes/provider-schedules.js';
import { ListRecurrencesQuerySchema, SkipOccurrenceRequestSchema } from './routes/recurring-payouts.js';
import { ListRefundsQuerySchema } from './routes/refunds.js';
import {
  ApproveRequestSchema,
  CancelRequestSchema,
  ListPayoutsQuerySchema,
  ListSettlementsQuerySchema,
  PauseRequestSchema,
  ProviderPageQuerySchema,
  ResolveReviewRequestSchema,
  ResourceIdSchema,
  ResumeRequestSchema,
} from './schemas.js';

type JsonSchema = Record<string, unknown>;

/** The request side of a schema, as JSON Schema 2020-12 (OpenAPI 3.1's dialect), without `$schema`. */
function jsonSchema(schema: z.ZodMiniType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return rest;
}

/** One OpenAPI query parameter per property of a strict query-string schema. */
function queryParameters(schema: z.ZodMiniObject): JsonSchema[] {
  const object = jsonSchema(schema);
  const properties = z.record(z.string(), z.record(z.string(), z.unknown())).parse(object.properties ?? {});
  const required = new Set(z.array(z.string()).parse(object.required ?? []));
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema: property,
  }));
}

const problemSchema: JsonSchema = {
  type: 'object',
  description: 'RFC 9457 problem details',
  required: ['type', 'title', 'status', 'detail'],
  properties: {
    type: { type: 'string', examples: ['urn:payout-automation:problem:validation'] },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    errors: {
      type: 'array',
      description: 'present on validation problems: one entry per invalid field',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
};

const principalSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'kind'],
  properties: { id: { type: 'string' }, kind: { enum: ['user', 'system'] } },
};

const payoutSchema: JsonSchema = {
  type: 'object',
  description:
    'A payout. `amount` and `receipt.charges` are integer kobo. The instruction fields of its `type` ' +
    '(`beneficiary`, `sourceWalletId`, `destinationWalletId`, `walletId`, `childAccountId`) appear at the top level.',
  required: ['id', 'type', 'status', 'amount', 'currency', 'narration', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string' },
    type: { type: 'string' },
    status: { type: 'string' },
    amount: { type: 'integer' },
    currency: { const: 'NGN' },
    narration: { type: 'string' },
    metadata: { type: 'object' },
    idempotencyKey: { type: 'string' },
    scheduleAt: { type: 'string', format: 'date-time' },
    requestedBy: principalSchema,
    approvedBy: principalSchema,
    submissionCount: { type: 'integer' },
    receipt: { type: 'object' },
    failure: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    },
    paidTwice: {
      type: 'object',
      description: 'present when more than one attempt moved the money (status needs_review)',
      properties: {
        attempts: { type: 'array', items: { type: 'integer' } },
        transactionIds: { type: 'array', items: { type: 'string' } },
      },
    },
    watchedAttempts: {
      type: 'array',
      description: 'earlier attempts proved absent, still looked for at the provider until `watchUntil`',
      items: {
        type: 'object',
        properties: {
          attempt: { type: 'integer' },
          startedAt: { type: 'string', format: 'date-time' },
          watchUntil: { type: 'string', format: 'date-time' },
        },
      },
    },
    watchEndedAt: { type: 'string', format: 'date-time' },
    resolutionProposal: {
      type: 'object',
      description: 'a forced resolution as paid, waiting for a second person to confirm it',
      properties: {
        outcome: { const: 'succeeded' },
        transactionId: { type: 'string' },
        note: { type: 'string' },
        proposedBy: principalSchema,
        proposedAt: { type: 'string', format: 'date-time' },
        mismatch: { type: 'string' },
      },
    },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    audit: { type: 'array', description: 'GET /payouts/{id} only, oldest first', items: { type: 'object' } },
  },
};

const recurringPayoutSchema: JsonSchema = {
  type: 'object',
  description:
    'A recurring payout: the payout fields of its `type` at the top level, the rule under `schedule`. ' +
    'At or above the approval threshold it is `pending_approval` until a person other than its creator approves ' +
    'it; its occurrences are then requested by `createdBy` and carry `approvedBy`, so they need no approval of ' +
    'their own. GET, create, approve and skip also return `upcoming`, `history` and `audit`.',
  required: ['id', 'status', 'type', 'amount', 'schedule', 'createdBy', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string' },
    status: { enum: [...RECURRENCE_STATUSES] },
    statusReason: { type: 'string' },
    type: { type: 'string' },
    amount: { type: 'integer', description: 'kobo, per occurrence' },
    schedule: { type: 'object' },
    nextOccurrence: {
      type: 'object',
      properties: {
        localDate: { type: 'string', format: 'date' },
        at: { type: 'string', format: 'date-time' },
      },
    },
    skippedDates: { type: 'array', items: { type: 'string', format: 'date' } },
    createdBy: principalSchema,
    approvedBy: principalSchema,
    history: {
      type: 'array',
      description: 'newest first: what became of each occurrence',
      items: {
        type: 'object',
        required: ['localDate', 'at', 'state'],
        properties: {
          localDate: { type: 'string', format: 'date' },
          at: { type: 'string', format: 'date-time' },
          state: {
            enum: [...Object.values(OccurrenceState)],
            description:
              '`held`: a pause cancelled its payout; the resume pays it again (a new payout, `generation` + 1) ' +
              'if its time is after the resume, or records it `skipped` with the reason',
          },
          payoutId: { type: 'string' },
          payoutStatus: { type: 'string' },
          generation: {
            type: 'integer',
            description: 'present from 2 on: the payout after a pause and resume',
          },
          reason: { type: 'string' },
        },
      },
    },
    audit: {
      type: 'array',
      description: 'every command, oldest first',
      items: {
        type: 'object',
        properties: {
          action: { enum: [...RECURRENCE_ACTIONS] },
          actor: principalSchema,
          reason: { type: 'string' },
        },
      },
    },
  },
};

const json = (schema: JsonSchema) => ({ 'application/json': { schema } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const problems = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      String(status),
      { description: 'problem', content: { 'application/problem+json': { schema: ref('Problem') } } },
    ]),
  );
const ok = (description: string, schema: JsonSchema, status = '200') => ({
  [status]: { description, content: json(schema) },
});
const body = (schema: z.ZodMiniType, required = true) => ({ required, content: json(jsonSchema(schema)) });

const idempotencyHeader = {
  name: 'Idempotency-Key',
  in: 'header',
  required: true,
  schema: jsonSchema(IdempotencyKeySchema),
};
const idPath = { name: 'id', in: 'path', required: true, schema: jsonSchema(ResourceIdSchema) };
const pageList = { type: 'object', properties: { items: { type: 'array' }, pagination: { type: 'object' } } };

/**
 * The OpenAPI 3.1 document of the ops API, generated from the same zod schemas that validate requests.
 * `npm run openapi` writes it to docs/openapi.json; a test fails when that file is stale.
 */
export function buildOpenApiDocument() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payout automation ops API',
      version: '0.1.0',
      description:
        "JSON API for operating payouts. In AWS every call is signed with SigV4 (IAM auth) and the caller's " +
        `IAM principal is recorded; locally the \`${LOCAL_PRINCIPAL_HEADER}\` header names the caller. ` +
        'Errors are application/problem+json (RFC 9457). Free text a client writes (narrations, account names, ' +
        'notes, reasons) is printable, NFC-normalised text that never holds a payout marker po_<id>. Locally ' +
        '(npm start) the server takes only requests a local client sends: Host 127.0.0.1, localhost or [::1] with ' +
        'its port (else 421), no Origin but its own (else 403), and Content-Type application/json on every ' +
        'request but GET (else 415).',
    },
    servers: [{ url: 'http://127.0.0.1:3000', description: 'npm start' }],
    paths: {
      '/payouts': {
        post: {
          operationId: 'createPayout',
          summary: 'Create a payout (idempotent per Idempotency-Key); a pending payout is submitted at once',
          parameters: [idempotencyHeader],
          requestBody: body(CreatePayoutRequestSchema),
          responses: {
            ...ok('created', ref('Payout'), '201'),
            ...ok('replay of the same key and body; header Idempotent-Replayed: true', ref('Payout')),
            ...problems(400, 409),
          },
        },
        get: {
          operationId: 'listPayouts',
          summary: 'List payouts, newest first, with cursor pagination',
          parameters: queryParameters(ListPayoutsQuerySchema),
          responses: {
            ...ok('a page', {
              type: 'object',
              properties: { items: { type: 'array', items: ref('Payout') }, nextCursor: { type: 'string' } },
            }),
            ...problems(400),
          },
        },
      },
      '/payouts/{id}': {
        get: {
          operationId: 'getPayout',
          summary: 'A payout with its audit trail',
          parameters: [idPath],
          responses: { ...ok('the payout', ref('Payout')), ...problems(404) },
        },
      },
      '/payouts/{id}/cancel': {
        post: {
          operationId: 'cancelPayout',
          summary: 'Cancel a payout that has not been submitted',
          parameters: [idPath],
          requestBody: body(CancelRequestSchema, false),
          responses: { ...ok('cancelled', ref('Payout')), ...problems(400, 404, 409) },
        },
      },
      '/payouts/{id}/approve': {
        post: {
          operationId: 'approvePayout',
          summary: 'Approve a payout waiting for approval (never by its requester)',
          parameters: [idPath],
          requestBody: body(ApproveRequestSchema, false),
          responses: { ...ok('approved', ref('Payout')), ...problems(400, 403, 404, 409) },
        },
      },
      '/payouts/{id}/resolve': {
        post: {
          operationId: 'resolvePayout',
          summary:
            'Decide a payout in needs_review after checking the provider by hand: succeeded (with the provider transaction id) or failed; the note is audited',
          description:
            'Resolving as `succeeded` reads the named provider record: it must exist and be a SUCCESS debit whose narration ends with one of ' +
            "the payout's attempt markers (`po_<id>` or `po_<id>_<n>`), with the payout's amount and destination; the payout then takes the " +
            "record's receipt, charges included. Otherwise the answer is 409 naming the mismatch. With `force: true` the first call records a " +
            'proposal (202, the payout stays in needs_review with `resolutionProposal`); the same forced call by a different person applies it ' +
            '(200); by the proposer it is 403. 503 when the provider cannot be asked (nothing changed).',
          parameters: [idPath],
          requestBody: body(ResolveReviewRequestSchema),
          responses: {
            ...ok('resolved', ref('Payout')),
            ...ok('forced resolution proposed; a second person must confirm it', ref('Payout'), '202'),
            ...problems(400, 403, 404, 409, 503),
          },
        },
      },
      '/controls': {
        get: { operationId: 'getControls', responses: ok('the controls', ref('Controls')) },
      },
      '/controls/pause': {
        post: {
          operationId: 'pausePayouts',
          summary: 'Stop all submissions until resumed',
          requestBody: body(PauseRequestSchema),
          responses: { ...ok('paused', ref('Controls')), ...problems(400) },
        },
      },
      '/controls/resume': {
        post: {
          operationId: 'resumePayouts',
          requestBody: body(ResumeRequestSchema, false),
          responses: { ...ok('resumed', ref('Controls')), ...problems(400) },
        },
      },
      '/refunds': {
        get: {
          operationId: 'listRefunds',
          summary: 'Refunds newest first, by status (pending_approval: those waiting for a second person)',
          parameters: queryParameters(ListRefundsQuerySchema),
          responses: {
            ...ok('a page', {
              type: 'object',
              required: ['items'],
              properties: { items: { type: 'array', items: ref('Refund') }, nextCursor: { type: 'string' } },
            }),
            ...problems(400),
          },
        },
        post: {
          operationId: 'createRefund',
          summary:
            'Request a refund of a payment-link transaction (amount in integer kobo). Above the per-payout maximum: 400 naming amount. Unknown or unpaid transaction, or refunds of the transaction would exceed what was paid: 422 naming transactionId or amount, nothing stored or sent. At or above the approval threshold it waits in pending_approval; while payouts are paused it waits in requested; beyond the merchant daily cap it is rejected (DAILY_CAP_EXCEEDED)',
          parameters: [idempotencyHeader],
          requestBody: body(CreateRefundRequestSchema),
          responses: {
            ...ok('recorded (and sent, unless it waits for approval or a resume)', ref('Refund'), '201'),
            ...ok('replay; header Idempotent-Replayed: true', ref('Refund')),
            ...problems(400, 409, 422, 503),
          },
        },
      },
      '/refunds/{id}': {
        get: {
          operationId: 'getRefund',
          summary: 'A refund with its audit trail',
          parameters: [idPath],
          responses: { ...ok('the refund', ref('Refund')), ...problems(404) },
        },
      },
      '/refunds/{id}/approve': {
        post: {
          operationId: 'approveRefund',
          summary:
            'Approve a refund in pending_approval (never by its requester, compared by stable identity); it is then sent',
          parameters: [idPath],
          requestBody: body(ApproveRequestSchema, false),
          responses: { ...ok('approved (and sent)', ref('Refund')), ...problems(400, 403, 404, 409) },
        },
      },
      '/refunds/{id}/cancel': {
        post: {
          operationId: 'cancelRefund',
          summary:
            'Withdraw a refund never sent (pending_approval, requested, not_sent); its share of the transaction total is given back',
          parameters: [idPath],
          requestBody: body(CancelRequestSchema, false),
          responses: { ...ok('cancelled', ref('Refund')), ...problems(400, 404, 409) },
        },
      },
      ...Object.fromEntries(
        ['settlements', 'wallet-transactions', 'stores'].map((view) => [
          `/provider/${view}`,
          {
            get: {
              operationId: `provider-${view}`,
              summary: `One page of the provider's ${view.replace('-', ' ')} (records as the provider sends them)`,
              parameters: queryParameters(ProviderPageQuerySchema),
              responses: { ...ok('a page', pageList), ...problems(400, 502, 503) },
            },
          },
        ]),
      ),
      '/recurring-payouts': {
        post: {
          operationId: 'createRecurringPayout',
          summary:
            'Create a recurring payout; its occurrences become scheduled payouts. Above the per-payout maximum: ' +
            '400 naming `amount`, nothing stored. At or above the approval threshold: `pending_approval`.',
          parameters: [idempotencyHeader],
          requestBody: body(CreateRecurrenceRequestSchema),
          responses: {
            ...ok('created', ref('RecurringPayout'), '201'),
            ...ok('replay; header Idempotent-Replayed: true', ref('RecurringPayout')),
            ...problems(400, 409),
          },
        },
        get: {
          operationId: 'listRecurringPayouts',
          parameters: queryParameters(ListRecurrencesQuerySchema),
          responses: {
            ...ok('a page', {
              type: 'object',
              properties: {
                items: { type: 'array', items: ref('RecurringPayout') },
                nextCursor: { type: 'string' },
              },
            }),
            ...problems(400),
          },
        },
      },
      '/recurring-payouts/{id}': {
        get: {
          operationId: 'getRecurringPayout',
          parameters: [idPath],
          responses: { ...ok('the recurring payout', ref('RecurringPayout')), ...problems(404) },
        },
      },
      '/recurring-payouts/{id}/approve': {
        post: {
          operationId: 'approveRecurringPayout',
          summary:
            'Approve a recurring payout waiting in `pending_approval` (never by its creator, never by a system ' +
            'principal); occurrences whose time passed while it waited are recorded as skipped',
          parameters: [idPath],
          requestBody: body(ApproveRequestSchema, false),
          responses: { ...ok('approved', ref('RecurringPayout')), ...problems(400, 403, 404, 409) },
        },
      },
      ...Object.fromEntries(
        (
          [
            ['pause', PauseRequestSchema],
            ['resume', ResumeRequestSchema],
            ['cancel', CancelRequestSchema],
          ] as const
        ).map(([action, schema]) => [
          `/recurring-payouts/{id}/${action}`,
          {
            post: {
              operationId: `${action}RecurringPayout`,
              parameters: [idPath],
              requestBody: body(schema, false),
              responses: { ...ok(action, ref('RecurringPayout')), ...problems(400, 404, 409) },
            },
          },
        ]),
      ),
      '/recurring-payouts/{id}/occurrences/{localDate}/skip': {
        post: {
          operationId: 'skipOccurrence',
          summary: 'Skip one occurrence (its Lagos calendar date)',
          parameters: [
            idPath,
            { name: 'localDate', in: 'path', required: true, schema: { type: 'string', format: 'date' } },
          ],
          requestBody: body(SkipOccurrenceRequestSchema, false),
          responses: { ...ok('skipped', ref('RecurringPayout')), ...problems(400, 404, 409) },
        },
      },
      ...Object.fromEntries(
        ['scheduled-payouts', 'recurrent-payouts'].map((view) => [
          `/provider/${view}`,
          {
            get: {
              operationId: `provider-${view}`,
              summary: `The provider's own ${view.replace('-', ' ')}, as last synchronised`,
              parameters: queryParameters(ProviderScheduleQuerySchema),
              responses: { ...ok('the view', { type: 'object' }), ...problems(400) },
            },
          },
        ]),
      ),
      '/future-payouts': {
        get: {
          operationId: 'listFuturePayouts',
          summary:
            'All planned money movement, earliest first: our scheduled payouts and recurring occurrences, and the provider’s own schedules; `bothSides` flags a bank account paid on both; `awaitsApproval` flags money that moves only once a second person approves (a recurring payout in `pending_approval`, or one of ours at or above the approval threshold that nobody approved yet)',
          parameters: queryParameters(FuturePayoutsQuerySchema),
          responses: { ...ok('the movements in the window', { type: 'object' }), ...problems(400) },
        },
      },
      '/instant-settlements': {
        get: {
          operationId: 'listSettlementDecisions',
          summary: 'Decisions on settlements and deferrals still waiting for one, newest first',
          parameters: queryParameters(ListSettlementsQuerySchema),
          responses: {
            ...ok('a page', {
              type: 'object',
              required: ['items'],
              properties: {
                items: { type: 'array', items: ref('SettlementDecision') },
                nextCursor: { type: 'string' },
              },
            }),
            ...problems(400, 503),
          },
        },
        post: {
          operationId: 'payOutSettlement',
          summary: 'Pay a settlement out now under the instant-settlement policy',
          requestBody: body(InstantSettlementRequestSchema),
          responses: { ...ok('the decision', { type: 'object' }), ...problems(400, 404, 409, 503) },
        },
      },
      '/instant-settlements/{settlementId}': {
        get: {
          operationId: 'getSettlementDecision',
          summary: 'The decision on a settlement, or its open deferral while it has none',
          parameters: [{ name: 'settlementId', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { ...ok('the decision or deferral', ref('SettlementDecision')), ...problems(404, 503) },
        },
      },
      '/bulk-payout-items/corrections': {
        post: {
          operationId: 'correctBulkPayoutItems',
          summary:
            'Correct many bulk payout items as a job: JSON `{ corrections }` (1 to 500) or a text/csv upload (header row naming bulkPayoutItemId and any of accountNumber, bankCode, amount, phoneNumber, narration). Every row is validated first: one bad row refuses the batch (400 naming `corrections[i].field`, or `row n.field` for a CSV), nothing stored or sent. The job is stored and handed to the queue workers; the answer comes before any provider call',
          requestBody: {
            required: true,
            content: {
              ...json(jsonSchema(BatchEnvelopeSchema)),
              'text/csv': { schema: { type: 'string' } },
            },
          },
          responses: {
            '202': {
              description:
                'accepted: the job (all rows `queued`); header Location: /bulk-correction-jobs/{jobId}',
              content: json({
                allOf: [
                  ref('CorrectionJob'),
                  { type: 'object', properties: { location: { type: 'string' } } },
                ],
              }),
            },
            ...problems(400, 503),
          },
        },
      },
      '/bulk-correction-jobs': {
        get: {
          operationId: 'listCorrectionJobs',
          summary: 'Correction jobs, newest first (`GET` one for its counts)',
          parameters: queryParameters(ListCorrectionJobsQuerySchema),
          responses: {
            ...ok('a page', {
              type: 'object',
              required: ['items'],
              properties: {
                items: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['jobId', 'total', 'source', 'requestedBy', 'createdAt', 'location'],
                    properties: {
                      jobId: { type: 'string' },
                      total: { type: 'integer' },
                      source: { enum: ['json', 'csv'] },
                      requestedBy: principalSchema,
                      createdAt: { type: 'string', format: 'date-time' },
                      location: { type: 'string' },
                    },
                  },
                },
                nextCursor: { type: 'string' },
              },
            }),
            ...problems(400),
          },
        },
      },
      '/bulk-correction-jobs/{id}': {
        get: {
          operationId: 'getCorrectionJob',
          summary: 'A correction job: status, rows counted per state, progress',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { ...ok('the job', ref('CorrectionJob')), ...problems(404) },
        },
      },
      '/bulk-correction-jobs/{id}/items': {
        get: {
          operationId: 'listCorrectionJobItems',
          summary: "The job's rows with their results, in row order, page by page",
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
            ...queryParameters(ListCorrectionJobsQuerySchema),
          ],
          responses: {
            ...ok('a page', {
              type: 'object',
              required: ['items'],
              properties: {
                items: { type: 'array', items: ref('CorrectionJobItem') },
                nextCursor: { type: 'string' },
              },
            }),
            ...problems(400, 404),
          },
        },
      },
      '/bulk-correction-jobs/{id}/results.csv': {
        get: {
          operationId: 'downloadCorrectionJobResults',
          summary: `Every row's result as CSV (RFC 4180, CRLF), one row per correction in batch order. Columns: ${RESULTS_CSV_COLUMNS.join(', ')} (docs/bulk-corrections.md)`,
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': { description: 'the results', content: { 'text/csv': { schema: { type: 'string' } } } },
            ...problems(404),
          },
        },
      },
      '/bulk-correction-jobs/{id}/requeue': {
        post: {
          operationId: 'requeueCorrectionJob',
          summary:
            'Hand the rows still queued (or left claimed) to the workers again, after the queue refused them or they were dead-lettered; nothing is sent twice',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '202': { description: 'handed over again', content: json(ref('CorrectionJob')) },
            ...problems(404, 503),
          },
        },
      },
      '/bulk-payout-items': {
        get: {
          operationId: 'listBulkPayoutItems',
          summary:
            'Items corrected here, newest change first (the provider offers no listing of bulk items: an item appears after its first correction)',
          parameters: queryParameters(ListBulkItemsQuerySchema),
          responses: {
            ...ok('a page', {
              type: 'object',
              properties: { items: { type: 'array' }, nextCursor: { type: 'string' } },
            }),
            ...problems(400),
          },
        },
      },
      '/bulk-payout-items/{id}': {
        get: {
          operationId: 'getBulkPayoutItem',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { ...ok('the item with its corrections', { type: 'object' }), ...problems(404) },
        },
        patch: {
          operationId: 'correctBulkPayoutItem',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          requestBody: body(CorrectionFieldsSchema),
          summary:
            'Correct one item. Changing the account or bank of an item that may be valid, or an amount at or above the approval threshold, is held (202) for a second person; above the per-payout maximum is a 400',
          responses: {
            ...ok('corrected, or still invalid', { type: 'object' }),
            '202': {
              description:
                'held for approval: `{ outcome: "pending_approval", correction: { correctionId, reason, requestedBy, ... } }`; nothing sent',
              content: { 'application/json': { schema: { type: 'object' } } },
            },
            ...problems(400, 404, 409, 422, 502, 503),
          },
        },
      },
      '/bulk-payout-items/{id}/corrections/{correctionId}/approve': {
        post: {
          operationId: 'approveBulkPayoutItemCorrection',
          summary:
            'A second person (never the requester) approves a held correction; it is then sent once and answered like a PATCH',
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'correctionId', in: 'path', required: true, schema: { type: 'string' } },
          ],
          responses: {
            ...ok('corrected, or still invalid', { type: 'object' }),
            ...problems(403, 404, 409, 422, 502, 503),
          },
        },
      },
      '/approvals': {
        get: {
          operationId: 'listApprovals',
          summary:
            'Money instructions waiting for a second person that the caller may approve (all but their own requests, by identity): payouts, refunds and held bulk-item corrections, newest first, each with the call that approves it',
          parameters: queryParameters(ListApprovalsQuerySchema),
          responses: {
            ...ok('one page of each kind', {
              type: 'object',
              required: ['items', 'nextCursors'],
              properties: {
                items: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['kind', 'id', 'requestedBy', 'requestedAt', 'summary', 'approve'],
                    properties: {
                      kind: { enum: ['payout', 'refund', 'bulk-correction', 'recurring-payout'] },
                      id: { type: 'string' },
                      amount: { type: 'integer', description: 'kobo' },
                      requestedBy: principalSchema,
                      requestedAt: { type: 'string', format: 'date-time' },
                      summary: { type: 'string' },
                      approve: {
                        type: 'object',
                        properties: { method: { const: 'POST' }, path: { type: 'string' } },
                      },
                    },
                  },
                },
                nextCursors: { type: 'object', additionalProperties: { type: 'string' } },
              },
            }),
            ...problems(400),
          },
        },
      },
      '/dead-letters': {
        get: {
          operationId: 'listDeadLetters',
          summary: 'Inbound events no handler could accept, newest first, by status',
          parameters: queryParameters(ListDeadLettersQuerySchema),
          responses: {
            ...ok('a page', {
              type: 'object',
              required: ['items'],
              properties: {
                items: { type: 'array', items: ref('DeadLetter') },
                nextCursor: { type: 'string' },
              },
            }),
            ...problems(400),
          },
        },
      },
      '/dead-letters/{id}': {
        get: {
          operationId: 'getDeadLetter',
          parameters: [idPath],
          responses: { ...ok('the dead letter', ref('DeadLetter')), ...problems(404) },
        },
      },
      '/dead-letters/{id}/replay': {
        post: {
          operationId: 'replayDeadLetter',
          summary:
            'Deliver the event to its handler again (the same gate and idempotency as the rule). 200 when taken; 422 when refused again (the letter stays open, the replay recorded)',
          parameters: [idPath],
          responses: {
            ...ok('delivered', {
              type: 'object',
              properties: { delivered: { type: 'boolean' }, letter: ref('DeadLetter') },
            }),
            '422': {
              description: 'refused again: `{ delivered: false, letter }`',
              content: json({
                type: 'object',
                properties: { delivered: { const: false }, letter: ref('DeadLetter') },
              }),
            },
            ...problems(404, 409),
          },
        },
      },
      '/dead-letters/{id}/discard': {
        post: {
          operationId: 'discardDeadLetter',
          parameters: [idPath],
          requestBody: body(DiscardDeadLetterRequestSchema),
          responses: { ...ok('discarded', ref('DeadLetter')), ...problems(400, 404, 409) },
        },
      },
      '/health': {
        get: {
          operationId: 'health',
          summary:
            'Cheap liveness; with deep=true, one table read and one provider read call, 503 naming what failed',
          parameters: [{ name: 'deep', in: 'query', schema: { enum: ['true', 'false'] } }],
          responses: {
            ...ok('healthy', { type: 'object' }),
            '503': {
              description:
                'deep check failed: `{ status: "failed", checks: { table, provider } }`, each `{ status, detail? }`',
              content: { 'application/json': { schema: { type: 'object' } } },
            },
          },
        },
      },
      '/openapi.json': {
        get: { operationId: 'openapi', responses: ok('this document', { type: 'object' }) },
      },
    },
    components: {
      schemas: {
        Problem: problemSchema,
        Payout: payoutSchema,
        RecurringPayout: recurringPayoutSchema,
        Controls: {
          type: 'object',
          required: ['paused'],
          properties: {
            paused: { type: 'boolean' },
            reason: { type: 'string' },
            updatedBy: principalSchema,
            updatedAt: { type: 'string', format: 'date-time' },
          },
        },
        DeadLetter: {
          type: 'object',
          required: ['id', 'event', 'error', 'at', 'status', 'actions'],
          properties: {
            id: { type: 'string' },
            event: { description: 'the event as it was delivered' },
            detailType: { type: 'string' },
            error: {
              type: 'object',
              properties: {
                name: { type: 'string' },
                code: { type: 'string' },
                message: { type: 'string' },
                issues: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: { path: { type: 'string' }, message: { type: 'string' } },
                  },
                },
              },
            },
            at: { type: 'string', format: 'date-time' },
            status: { enum: ['open', 'replayed', 'discarded'] },
            actions: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  action: { enum: ['replay', 'discard'] },
                  by: principalSchema,
                  at: { type: 'string', format: 'date-time' },
                  note: { type: 'string' },
                },
              },
            },
          },
        },
        SettlementDecision: {
          type: 'object',
          required: ['settlementId', 'decision', 'reason', 'settlement', 'trigger'],
          properties: {
            settlementId: { type: 'string' },
            decision: { enum: ['paid', 'skipped', 'deferred'] },
            code: {
              type: 'string',
              description:
                'why it was skipped (e.g. BEFORE_CUTOFF, BELOW_MINIMUM, SETTLEMENT_NOT_SUCCESSFUL) or deferred (OUTSIDE_ALLOWED_HOURS)',
            },
            reason: { type: 'string' },
            payoutId: { type: 'string' },
            amount: { type: 'integer', description: 'kobo paid out' },
            currency: { const: 'NGN' },
            settlement: {
              type: 'object',
              required: ['status', 'category', 'date'],
              properties: {
                status: { type: 'string' },
                category: { type: 'string' },
                amountKobo: { type: 'integer' },
                date: { type: 'string' },
              },
            },
            trigger: { enum: ['event', 'api', 'poll'] },
            decidedBy: principalSchema,
            decidedAt: { type: 'string', format: 'date-time' },
            deferredBy: principalSchema,
            deferredAt: { type: 'string', format: 'date-time' },
          },
        },
        CorrectionJob: {
          type: 'object',
          required: ['jobId', 'total', 'source', 'requestedBy', 'createdAt', 'status', 'counts', 'progress'],
          properties: {
            jobId: { type: 'string' },
            total: { type: 'integer' },
            source: { enum: ['json', 'csv'] },
            requestedBy: principalSchema,
            createdAt: { type: 'string', format: 'date-time' },
            status: { enum: Object.values(JobStatus) },
            counts: {
              type: 'object',
              description: 'rows per state; states with no row are left out',
              propertyNames: { enum: Object.values(JobItemStatus) },
              additionalProperties: { type: 'integer' },
            },
            progress: {
              type: 'object',
              required: ['done', 'total', 'percent'],
              properties: {
                done: { type: 'integer' },
                total: { type: 'integer' },
                percent: { type: 'integer' },
              },
            },
          },
        },
        CorrectionJobItem: {
          type: 'object',
          required: ['row', 'bulkPayoutItemId', 'fields', 'status', 'updatedAt'],
          properties: {
            row: { type: 'integer', description: 'the row in the batch, from 1' },
            bulkPayoutItemId: { type: 'string' },
            fields: { type: 'object', description: 'the fields to set; amount in kobo' },
            status: { enum: Object.values(JobItemStatus) },
            isValid: { type: 'boolean' },
            reason: { type: ['string', 'null'] },
            approvalReason: { type: 'string' },
            correctionId: { type: 'string' },
            approve: { type: 'string', description: 'the call that approves a held row' },
            failure: {
              type: 'object',
              properties: { code: { type: 'string' }, message: { type: 'string' } },
            },
            issues: {
              type: 'array',
              items: {
                type: 'object',
                properties: { path: { type: 'string' }, message: { type: 'string' } },
              },
            },
            updatedAt: { type: 'string', format: 'date-time' },
          },
        },
        Refund: {
          type: 'object',
          required: ['id', 'status', 'transactionId', 'amount', 'currency'],
          properties: {
            id: { type: 'string' },
            status: { enum: Object.values(RefundStatus) },
            transactionId: { type: 'string' },
            amount: { type: 'integer', description: 'kobo' },
            currency: { const: 'NGN' },
            requestedBy: principalSchema,
            approvedBy: principalSchema,
            providerRefundId: { type: 'string' },
            failure: { type: 'object' },
            audit: {
              type: 'array',
              description: 'GET /refunds/{id} only, oldest first: who requested, who approved, each change',
              items: { type: 'object' },
            },
          },
        },
      },
    },
  };
}
