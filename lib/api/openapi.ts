import {
  BatchEnvelopeSchema,
  BulkPayoutItemIdSchema,
  CORRECTION_CSV_COLUMNS,
  CorrectionFieldsSchema,
  MAX_BATCH_CORRECTIONS,
} from '../bulk-corrections/index.js';
import { SettlementIdSchema } from '../events/index.js';
import { CreateRunJsonSchema, MAX_RUN_ROWS, RUN_COLUMNS } from '../payout-runs/index.js';
import { CreatePayoutRequestSchema, IdempotencyKeySchema } from '../payouts/index.js';
import { CreateRecurrenceRequestSchema } from '../recurrence/index.js';
import { CreateRefundRequestSchema } from '../refunds/index.js';
import * as z from '../shared/zod.js';
import { StatementDateSchema } from '../statements/index.js';
import { apiRoutes } from './index.js';
import { generateSchemas } from './openapi-responses.js';
import { LOCAL_SERVER_PROBLEMS, PROBLEM_SLUGS, PROBLEM_TYPES, problemType } from './problem-types.js';
import type { Route } from './router.js';
import { ListApprovalsQuerySchema } from './routes/approvals.js';
import { CorrectionIdSchema, ListBulkItemsQuerySchema } from './routes/bulk-payout-items.js';
import { JobIdSchema, ListCorrectionJobsQuerySchema } from './routes/correction-jobs.js';
import { DiscardDeadLetterRequestSchema, ListDeadLettersQuerySchema } from './routes/dead-letters.js';
import { FuturePayoutsQuerySchema } from './routes/future-payouts.js';
import { HealthQuerySchema } from './routes/health.js';
import { InstantSettlementRequestSchema } from './routes/instant-settlements.js';
import {
  InviteOperatorRequestSchema,
  OperatorGroupsRequestSchema,
  OperatorReasonRequestSchema,
  OperatorUsernamePathSchema,
  ProposalIdPathSchema,
} from './routes/operators.js';
import {
  PAYOUT_EXPORT_MAX_DAYS,
  PAYOUT_EXPORT_PAGE_ROWS,
  PayoutExportQuerySchema,
} from './routes/payout-export.js';
import {
  CreateRunQuerySchema,
  ListRunRowsQuerySchema,
  ListRunsQuerySchema,
  ResultsCsvQuerySchema,
  RunIdSchema,
} from './routes/payout-runs.js';
import { AuditPageQuerySchema } from './routes/payouts.js';
import { ProviderScheduleQuerySchema } from './routes/provider-schedules.js';
import {
  HistoryPageQuerySchema,
  ListRecurrencesQuerySchema,
  SkipOccurrenceRequestSchema,
} from './routes/recurring-payouts.js';
import { ListRefundsQuerySchema, ResolveRefundRequestSchema } from './routes/refunds.js';
import {
  ListLinesQuerySchema,
  ListStatementsQuerySchema,
  StatementCsvQuerySchema,
} from './routes/statements.js';
import {
  ApproveRequestSchema,
  CancelRequestSchema,
  ListPayoutsQuerySchema,
  ListSettlementsQuerySchema,
  PauseRequestSchema,
  ProviderPageQuerySchema,
  RejectRequestSchema,
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
function queryParameters(schema: z.ZodMiniType): JsonSchema[] {
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

const json = (schema: JsonSchema) => ({ 'application/json': { schema } });
const body = (schema: z.ZodMiniType, required = true) => ({ required, content: json(jsonSchema(schema)) });

const idempotencyHeader = {
  name: 'Idempotency-Key',
  in: 'header',
  required: true,
  schema: jsonSchema(IdempotencyKeySchema),
};
const idPath = { name: 'id', in: 'path', required: true, schema: jsonSchema(ResourceIdSchema) };
const bulkItemPath = { name: 'id', in: 'path', required: true, schema: jsonSchema(BulkPayoutItemIdSchema) };
const datePath = { name: 'date', in: 'path', required: true, schema: jsonSchema(StatementDateSchema) };
const jobPath = { name: 'id', in: 'path', required: true, schema: jsonSchema(JobIdSchema) };
const runPath = { name: 'id', in: 'path', required: true, schema: jsonSchema(RunIdSchema) };
const usernamePath = {
  name: 'username',
  in: 'path',
  required: true,
  schema: jsonSchema(OperatorUsernamePathSchema),
};
const proposalPath = {
  name: 'proposalId',
  in: 'path',
  required: true,
  schema: jsonSchema(ProposalIdPathSchema),
};

/** A `text/csv` payout run: its columns, from the service's own list. */
const RunCsvSchema = z.string().check(
  z.describe(
    `one payout per row (1 to ${MAX_RUN_ROWS}), header row first. Columns: ` +
      Object.entries(RUN_COLUMNS)
        .map(([name, meaning]) => `${name} (${meaning})`)
        .join('; '),
  ),
);

/** A `text/csv` correction upload: its columns, from the parser's own list. */
const CorrectionsCsvSchema = z.string().check(
  z.describe(
    'RFC 4180 CSV: a header row naming the columns (any order, any subset that includes bulkPayoutItemId), then ' +
      `one correction per row (1 to ${MAX_BATCH_CORRECTIONS}); an empty cell leaves that field as it is. Columns: ` +
      Object.entries(CORRECTION_CSV_COLUMNS)
        .map(([column, meaning]) => `\`${column}\` (${meaning})`)
        .join(', '),
  ),
);

/** An operation's request side and words; its responses come from the route (see `responsesOf`). */
interface Operation {
  readonly operationId: string;
  readonly summary?: string;
  readonly description?: string;
  readonly parameters?: readonly JsonSchema[];
  readonly requestBody?: JsonSchema;
}

/** Summaries, parameters and request bodies of every operation, by path and method. */
function operations(): Record<string, Record<string, Operation>> {
  return {
    '/payouts': {
      post: {
        operationId: 'createPayout',
        summary: 'Create a payout (idempotent per Idempotency-Key); a pending payout is submitted at once',
        parameters: [idempotencyHeader],
        requestBody: body(CreatePayoutRequestSchema),
      },
      get: {
        operationId: 'listPayouts',
        summary: 'List payouts, newest first, with cursor pagination',
        parameters: queryParameters(ListPayoutsQuerySchema),
      },
    },
    '/payouts/export.csv': {
      get: {
        operationId: 'exportPayouts',
        summary: `Every payout created from the first day to the last (YYYY-MM-DD in the statement's zone, at most ${PAYOUT_EXPORT_MAX_DAYS} days), newest first, as CSV, ${PAYOUT_EXPORT_PAGE_ROWS} rows per part; a \`Link\` header with rel="next" names the next part`,
        parameters: queryParameters(PayoutExportQuerySchema),
      },
    },
    '/payouts/{id}': {
      get: {
        operationId: 'getPayout',
        summary: 'A payout with its audit trail',
        parameters: [idPath],
      },
    },
    '/payouts/{id}/audit': {
      get: {
        operationId: 'getPayoutAudit',
        summary:
          "A payout's whole audit trail, oldest first, page by page (`GET /payouts/{id}` holds only its newest events and counts the rest in `auditOmitted`)",
        parameters: [idPath, ...queryParameters(AuditPageQuerySchema)],
      },
    },
    '/payouts/{id}/cancel': {
      post: {
        operationId: 'cancelPayout',
        summary: 'Cancel a payout that has not been submitted',
        parameters: [idPath],
        requestBody: body(CancelRequestSchema, false),
      },
    },
    '/payouts/{id}/approve': {
      post: {
        operationId: 'approvePayout',
        summary: 'Approve a payout waiting for approval (never by its requester)',
        parameters: [idPath],
        requestBody: body(ApproveRequestSchema, false),
      },
    },
    '/payouts/{id}/reject': {
      post: {
        operationId: 'rejectPayout',
        summary:
          'Reject a payout waiting for approval, with the reason (never by its requester, who cancels instead): it ends `cancelled` with its `rejection`, for good, never sent',
        parameters: [idPath],
        requestBody: body(RejectRequestSchema, true),
      },
    },
    '/payouts/{id}/resolve': {
      post: {
        operationId: 'resolvePayout',
        summary:
          'Two people decide a payout in needs_review or unknown: succeeded (with the provider transaction id), failed, or paid_twice_recovered; both notes are audited',
        description:
          'Every resolution takes two people: the first call records a proposal (202, the payout keeps its status, with ' +
          '`resolutionProposal`); the same decision sent by a different person (another identity) applies it (200); by the proposer it ' +
          'is 403. Another decision replaces the proposal. The provider is read at both calls. `succeeded`: the named record must exist ' +
          "and be a SUCCESS debit whose narration ends with one of the payout's attempt markers (`po_<id>` or `po_<id>_<n>`), with the " +
          "payout's amount and destination; the payout takes the record's receipt, charges included. `failed`: the provider must show no " +
          'record for any attempt marker, and the payout no receipt; the cap reservation is then given back. Otherwise both answer 409 ' +
          'naming why, unless `force: true` is sent by both people (a forced `failed` gives no reservation back). A payout paid twice ' +
          '(`paidTwice`) is closed only as `paid_twice_recovered`, with the `recoveryReference` of how the extra money was recovered: it ends ' +
          '`succeeded` with `recovery`, every payment still counted on the daily cap (409 for any other outcome). Every attempt stays ' +
          'watched until its window ends, whatever the resolution. 503 when the provider cannot be asked (nothing changed).',
        parameters: [idPath],
        requestBody: body(ResolveReviewRequestSchema),
      },
    },
    '/controls': {
      get: { operationId: 'getControls' },
    },
    '/controls/pause': {
      post: {
        operationId: 'pausePayouts',
        summary: 'Stop all submissions until resumed',
        requestBody: body(PauseRequestSchema),
      },
    },
    '/controls/resume': {
      post: {
        operationId: 'resumePayouts',
        requestBody: body(ResumeRequestSchema, false),
      },
    },
    '/refunds': {
      get: {
        operationId: 'listRefunds',
        summary: 'Refunds newest first, by status (pending_approval: those waiting for a second person)',
        parameters: queryParameters(ListRefundsQuerySchema),
      },
      post: {
        operationId: 'createRefund',
        summary:
          'Request a refund of a payment-link transaction (amount in integer kobo). Above the per-payout maximum: 400 naming amount. Unknown or unpaid transaction, or refunds of the transaction would exceed what was paid: 422 naming transactionId or amount, nothing stored or sent. At or above the approval threshold it waits in pending_approval; while payouts are paused it waits in requested; beyond the merchant daily cap it is rejected (DAILY_CAP_EXCEEDED)',
        parameters: [idempotencyHeader],
        requestBody: body(CreateRefundRequestSchema),
      },
    },
    '/refunds/{id}': {
      get: {
        operationId: 'getRefund',
        summary: 'A refund with its audit trail',
        parameters: [idPath],
      },
    },
    '/refunds/{id}/reject': {
      post: {
        operationId: 'rejectRefund',
        summary:
          'Reject a refund waiting for approval, with the reason (never by its requester, who cancels instead): it ends `cancelled` with its `rejection`, never sent, its share of the transaction given back',
        parameters: [idPath],
        requestBody: body(RejectRequestSchema, true),
      },
    },
    '/refunds/{id}/approve': {
      post: {
        operationId: 'approveRefund',
        summary:
          'Approve a refund in pending_approval (never by its requester, compared by stable identity); it is then sent',
        parameters: [idPath],
        requestBody: body(ApproveRequestSchema, false),
      },
    },
    '/refunds/{id}/cancel': {
      post: {
        operationId: 'cancelRefund',
        summary:
          'Withdraw a refund never sent (pending_approval, requested, not_sent); its share of the transaction total is given back',
        parameters: [idPath],
        requestBody: body(CancelRequestSchema, false),
      },
    },
    '/refunds/{id}/resolve': {
      post: {
        operationId: 'resolveRefund',
        summary:
          'Settle an unknown refund after checking the provider by hand: not_sent (cancelled, its share of the transaction total and its cap reservation given back) or accepted (pending, with the provider refund id); the note is audited',
        description:
          'The provider has no read of a refund, so the decision is a person’s word and takes two people: the first call records a ' +
          'proposal (202, the refund stays unknown with `resolutionProposal`); the same decision (outcome and providerRefundId) by a ' +
          'different person applies it (200), with both people and both notes in the audit; by the proposer it is 403. Another ' +
          'decision replaces the proposal. Only an unknown refund can be resolved: 409 otherwise.',
        parameters: [idPath],
        requestBody: body(ResolveRefundRequestSchema),
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
      },
      get: {
        operationId: 'listRecurringPayouts',
        parameters: queryParameters(ListRecurrencesQuerySchema),
      },
    },
    '/recurring-payouts/{id}': {
      get: {
        operationId: 'getRecurringPayout',
        parameters: [idPath],
      },
    },
    '/recurring-payouts/{id}/history': {
      get: {
        operationId: 'getRecurringPayoutHistory',
        summary:
          'What became of every occurrence of a recurring payout, newest first, page by page (`GET /recurring-payouts/{id}` holds the newest 50 and, when there are more, `historyNextCursor` to go on from here)',
        parameters: [idPath, ...queryParameters(HistoryPageQuerySchema)],
      },
    },
    '/recurring-payouts/{id}/reject': {
      post: {
        operationId: 'rejectRecurringPayout',
        summary:
          'Reject a rule waiting for approval, with the reason (never by its creator, who cancels instead): it ends `cancelled` with its `rejection`; none of its occurrences is ever paid',
        parameters: [idPath],
        requestBody: body(RejectRequestSchema, true),
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
          { name: 'localDate', in: 'path', required: true, schema: jsonSchema(z.iso.date()) },
        ],
        requestBody: body(SkipOccurrenceRequestSchema, false),
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
      },
    },
    '/instant-settlements': {
      get: {
        operationId: 'listSettlementDecisions',
        summary: 'Decisions on settlements and deferrals still waiting for one, newest first',
        parameters: queryParameters(ListSettlementsQuerySchema),
      },
      post: {
        operationId: 'payOutSettlement',
        summary: 'Pay a settlement out now under the instant-settlement policy',
        requestBody: body(InstantSettlementRequestSchema),
      },
    },
    '/instant-settlements/{settlementId}': {
      get: {
        operationId: 'getSettlementDecision',
        summary: 'The decision on a settlement, or its open deferral while it has none',
        parameters: [
          { name: 'settlementId', in: 'path', required: true, schema: jsonSchema(SettlementIdSchema) },
        ],
      },
    },
    '/bulk-payout-items/corrections': {
      post: {
        operationId: 'correctBulkPayoutItems',
        summary:
          'Correct many bulk payout items as a job: JSON `{ corrections }` or a text/csv upload. Every row is validated first: one bad row refuses the batch (400 naming `corrections[i].field`, or `row n.field` for a CSV), nothing stored or sent. The job is stored and handed to the queue workers; the answer (202, Location) comes before any provider call. 503 `not-enqueued`: the job is stored but not all of it reached the workers (requeue it). With an Idempotency-Key (optional), a retry of the same request answers the job it created and queues nothing; the key with other rows is 409',
        parameters: [{ ...idempotencyHeader, required: false }],
        requestBody: {
          required: true,
          content: {
            ...json(jsonSchema(BatchEnvelopeSchema)),
            'text/csv': { schema: jsonSchema(CorrectionsCsvSchema) },
          },
        },
      },
    },
    '/payout-runs': {
      post: {
        operationId: 'createPayoutRun',
        summary:
          'Pay many people from one file (text/csv, or JSON `{ rows }`), approved once as a whole (docs/payout-runs.md). The whole file is validated first: 400 names every bad row and field (`rows[i].field`, or `row n.field` for a CSV), repeated references included; lines paying the same account the same amount, or the same rows as an earlier run, are 409 `duplicates-unacknowledged` until sent with `acknowledgeDuplicates`. Nothing is stored or sent on any refusal. 202: the run, `pending_approval` when its total or a row reaches the approval threshold, else `materialising`; the every-minute sweep turns its rows into payouts',
        parameters: [idempotencyHeader, ...queryParameters(CreateRunQuerySchema)],
        requestBody: {
          required: true,
          content: {
            ...json(jsonSchema(CreateRunJsonSchema)),
            'text/csv': { schema: jsonSchema(RunCsvSchema) },
          },
        },
      },
      get: {
        operationId: 'listPayoutRuns',
        summary: 'Payout runs, newest first (`GET` one for its progress)',
        parameters: queryParameters(ListRunsQuerySchema),
      },
    },
    '/payout-runs/{id}': {
      get: {
        operationId: 'getPayoutRun',
        summary:
          "A payout run: count, total, largest rows and the file's SHA-256 (what the approver checks), rows by payout status, amounts sent and failed, percent done, ETA",
        parameters: [runPath],
      },
    },
    '/payout-runs/{id}/approve': {
      post: {
        operationId: 'approvePayoutRun',
        summary:
          'A second person approves the run as a whole (never its requester, never a system); the gate judges it again with the limits in force',
        parameters: [runPath],
        requestBody: body(ApproveRequestSchema, false),
      },
    },
    '/payout-runs/{id}/reject': {
      post: {
        operationId: 'rejectPayoutRun',
        summary:
          'A second person rejects a run waiting for approval, with the reason (never its requester, who cancels instead): it ends `cancelled` with its `rejection`, none of its rows sent',
        parameters: [runPath],
        requestBody: body(RejectRequestSchema, true),
      },
    },
    '/payout-runs/{id}/cancel': {
      post: {
        operationId: 'cancelPayoutRun',
        summary: 'Cancel a run: payouts not yet claimed are cancelled, rows already sent stand',
        parameters: [runPath],
        requestBody: body(CancelRequestSchema, false),
      },
    },
    '/payout-runs/{id}/payouts': {
      get: {
        operationId: 'listPayoutRunPayouts',
        summary: "The run's rows with their payouts, in file order, page by page",
        parameters: [runPath, ...queryParameters(ListRunRowsQuerySchema)],
      },
    },
    '/payout-runs/{id}/results.csv': {
      get: {
        operationId: 'downloadPayoutRunResults',
        summary:
          'Every row\'s result as CSV (row, reference, payoutId, status, providerReference, failure), 1,000 rows per part; a `Link` header with rel="next" names the next part',
        parameters: [runPath, ...queryParameters(ResultsCsvQuerySchema)],
      },
    },
    '/bulk-correction-jobs': {
      get: {
        operationId: 'listCorrectionJobs',
        summary: 'Correction jobs, newest first (`GET` one for its counts)',
        parameters: queryParameters(ListCorrectionJobsQuerySchema),
      },
    },
    '/bulk-correction-jobs/{id}': {
      get: {
        operationId: 'getCorrectionJob',
        summary: 'A correction job: status, rows counted per state, progress',
        parameters: [jobPath],
      },
    },
    '/bulk-correction-jobs/{id}/items': {
      get: {
        operationId: 'listCorrectionJobItems',
        summary: "The job's rows with their results, in row order, page by page",
        parameters: [jobPath, ...queryParameters(ListCorrectionJobsQuerySchema)],
      },
    },
    '/bulk-correction-jobs/{id}/results.csv': {
      get: {
        operationId: 'downloadCorrectionJobResults',
        summary:
          "Every row's result as CSV, one row per correction in batch order (docs/bulk-corrections.md)",
        parameters: [jobPath],
      },
    },
    '/bulk-correction-jobs/{id}/requeue': {
      post: {
        operationId: 'requeueCorrectionJob',
        summary:
          'Hand the rows still queued (or left claimed) to the workers again, after the queue refused them or they were dead-lettered; nothing is sent twice',
        parameters: [jobPath],
      },
    },
    '/bulk-payout-items': {
      get: {
        operationId: 'listBulkPayoutItems',
        summary:
          'Items corrected here, newest change first (the provider offers no listing of bulk items: an item appears after its first correction)',
        parameters: queryParameters(ListBulkItemsQuerySchema),
      },
    },
    '/bulk-payout-items/{id}': {
      get: {
        operationId: 'getBulkPayoutItem',
        parameters: [bulkItemPath],
      },
      patch: {
        operationId: 'correctBulkPayoutItem',
        parameters: [bulkItemPath],
        requestBody: body(CorrectionFieldsSchema),
        summary:
          'Correct one item. Changing the account or bank of an item that may be valid, or an amount at or above the approval threshold, is held (202) for a second person; above the per-payout maximum is a 400',
      },
    },
    '/bulk-payout-items/{id}/corrections/{correctionId}/approve': {
      post: {
        operationId: 'approveBulkPayoutItemCorrection',
        summary:
          'A second person (never the requester) approves a held correction; it is then sent once and answered like a PATCH',
        parameters: [
          bulkItemPath,
          { name: 'correctionId', in: 'path', required: true, schema: jsonSchema(CorrectionIdSchema) },
        ],
      },
    },
    '/bulk-payout-items/{id}/corrections/{correctionId}/cancel': {
      post: {
        operationId: 'cancelBulkPayoutItemCorrection',
        summary:
          'Anyone withdraws a correction held for approval (pending_approval only, else 409); it is never sent, and leaves the approvals queue',
        parameters: [
          bulkItemPath,
          { name: 'correctionId', in: 'path', required: true, schema: jsonSchema(CorrectionIdSchema) },
        ],
        requestBody: body(CancelRequestSchema, false),
      },
    },
    '/approvals': {
      get: {
        operationId: 'listApprovals',
        summary:
          'Money instructions waiting for a second person that the caller may approve (all but their own requests, by identity): payouts, refunds and held bulk-item corrections, newest first, each with the call that approves it',
        parameters: queryParameters(ListApprovalsQuerySchema),
      },
    },
    '/dead-letters': {
      get: {
        operationId: 'listDeadLetters',
        summary: 'Inbound events no handler could accept, newest first, by status',
        parameters: queryParameters(ListDeadLettersQuerySchema),
      },
    },
    '/dead-letters/{id}': {
      get: {
        operationId: 'getDeadLetter',
        parameters: [idPath],
      },
    },
    '/dead-letters/{id}/replay': {
      post: {
        operationId: 'replayDeadLetter',
        summary:
          'Deliver the event to its handler again (the same gate and idempotency as the rule). 200 when taken; 422 when refused again (the letter stays open, the replay recorded)',
        parameters: [idPath],
      },
    },
    '/dead-letters/{id}/discard': {
      post: {
        operationId: 'discardDeadLetter',
        parameters: [idPath],
        requestBody: body(DiscardDeadLetterRequestSchema),
      },
    },
    '/statements': {
      get: {
        operationId: 'listStatements',
        summary: "The daily statements against the provider's wallet records, newest day first",
        parameters: queryParameters(ListStatementsQuerySchema),
      },
    },
    '/statements/{date}': {
      get: {
        operationId: 'getStatement',
        summary: "One day's report: lines and amounts per kind, the provider's totals, who ran it",
        parameters: [datePath],
      },
    },
    '/statements/{date}/lines': {
      get: {
        operationId: 'listStatementLines',
        summary: "A page of the day's lines, of one kind or all (docs/statements.md)",
        parameters: [datePath, ...queryParameters(ListLinesQuerySchema)],
      },
    },
    '/statements/{date}/lines.csv': {
      get: {
        operationId: 'downloadStatementCsv',
        summary:
          'Every line of the day\'s report as CSV, 500 lines per part; a `Link` header with rel="next" names the next part',
        parameters: [datePath, ...queryParameters(StatementCsvQuerySchema)],
      },
    },
    '/statements/{date}/run': {
      post: {
        operationId: 'runStatement',
        summary:
          'Reconcile the day again; idempotent: the same findings, nothing raised twice, no second needs_review. The run records who ran it',
        parameters: [datePath],
      },
    },
    '/operators': {
      get: {
        operationId: 'listOperators',
        summary:
          'Every operator of the user pool with their groups and whether they may sign in (admins only)',
      },
      post: {
        operationId: 'inviteOperator',
        summary:
          'Invite an operator (the pool e-mails a temporary password) into groups: viewer at once; a group that moves money (requester, approver, admin) is proposed, for a second admin to confirm',
        requestBody: body(InviteOperatorRequestSchema),
      },
    },
    '/operators/{username}': {
      get: {
        operationId: 'getOperator',
        summary:
          'An operator, the changes of their access waiting for a second admin, and their audit (who, when, from → to, why)',
        parameters: [usernamePath],
      },
    },
    '/operators/{username}/grant': {
      post: {
        operationId: 'grantOperatorGroups',
        summary:
          'Add groups: viewer alone at once (200); a group that moves money is proposed (202) for another admin to confirm. Never your own',
        parameters: [usernamePath],
        requestBody: body(OperatorGroupsRequestSchema),
      },
    },
    '/operators/{username}/revoke': {
      post: {
        operationId: 'revokeOperatorGroups',
        summary: 'Remove groups at once: one admin may reduce access. Never your own',
        parameters: [usernamePath],
        requestBody: body(OperatorGroupsRequestSchema),
      },
    },
    '/operators/{username}/disable': {
      post: {
        operationId: 'disableOperator',
        summary:
          'Disable at once: no sign-in, and every token or credential they still hold is refused (401). Never yourself',
        parameters: [usernamePath],
        requestBody: body(OperatorReasonRequestSchema),
      },
    },
    '/operators/{username}/enable': {
      post: {
        operationId: 'enableOperator',
        summary:
          'Enable again: at once (200) for one who holds no group that moves money, else proposed (202) for a second admin',
        parameters: [usernamePath],
        requestBody: body(OperatorReasonRequestSchema),
      },
    },
    '/operators/{username}/proposals/{proposalId}/confirm': {
      post: {
        operationId: 'confirmOperatorProposal',
        summary:
          'A second admin applies a pending grant or enable: never the admin who proposed it (by stable identity), nor the operator themselves',
        parameters: [usernamePath, proposalPath],
      },
    },
    '/operators/{username}/proposals/{proposalId}/cancel': {
      post: {
        operationId: 'cancelOperatorProposal',
        summary: 'Any admin withdraws a pending grant or enable; nothing is given',
        parameters: [usernamePath, proposalPath],
        requestBody: body(OperatorReasonRequestSchema),
      },
    },
    '/health': {
      get: {
        operationId: 'health',
        summary:
          'Cheap liveness; with deep=true, one table read and one provider read call, 503 naming what failed',
        parameters: queryParameters(HealthQuerySchema),
      },
    },
    '/openapi.json': {
      get: { operationId: 'openapi' },
    },
  };
}

/**
 * The OpenAPI 3.1 document of the ops API, generated from the zod schemas the code uses: the request schemas
 * that validate requests, and the response schemas the handlers' answers are typed by (each route's
 * `responses` and `problems`). `npm run openapi` writes it to docs/openapi.json; a test fails when that file is
 * stale, when a route has no operation here, and when an API test sees an answer the document does not allow.
 */
export function buildOpenApiDocument(routes: readonly Route[] = apiRoutes) {
  const generated = generateSchemas(routes);
  const described = operations();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const method = route.method.toLowerCase();
    const operation = described[route.path]?.[method];
    if (!operation) throw new Error(`${route.method} ${route.path} has no operation in lib/api/openapi.ts`);
    paths[route.path] = {
      ...paths[route.path],
      // The role the router requires (docs/controls.md, "Roles"), for clients and the console to read.
      [method]: { ...operation, 'x-operator-role': route.role, responses: generated.responsesOf(route) },
    };
  }
  for (const [path, methods] of Object.entries(described)) {
    for (const method of Object.keys(methods)) {
      if (!paths[path]?.[method])
        throw new Error(`${method.toUpperCase()} ${path} is documented but not routed`);
    }
  }
  return {
    openapi: '3.1.0' as const,
    info: {
      title: 'Payout automation ops API',
      version: '0.1.0',
      description:
        'JSON API for operating payouts. Machines and the CLI sign every call with SigV4 (`awsSigV4`: IAM auth, ' +
        "the caller's IAM principal recorded); operators sign in to the operators' user pool, and their calls carry " +
        'their identity-pool credentials (SigV4, the console and the CLI) or, on `npm start` only, their ID token ' +
        '(`operatorIdToken`). Each operation names the role it needs (`x-operator-role`). ' +
        'Errors are application/problem+json (RFC 9457): `x-problem-types` lists every problem type with its ' +
        'statuses and meaning, and each operation names the ones it answers (any may also answer `internal`, 500). Free text a client writes (narrations, account names, ' +
        'notes, reasons) is printable, NFC-normalised text that never holds a payout marker po_<id>. Locally ' +
        '(npm start) the server takes only requests a local client sends: Host 127.0.0.1, localhost or [::1] with ' +
        'its port (else 421), no Origin but its own (else 403), and Content-Type application/json (or text/csv for the ' +
        'CSV upload) on every request but GET (else 415).',
    },
    // Where the API answers, by configuration: the port npm start was given, a stage's API id and region (its
    // stack output OpsApiUrl), or a stage's console origin (its output ConsoleUrl), whose /api/* is this API.
    servers: [
      {
        url: 'http://127.0.0.1:{port}',
        description: 'npm start',
        variables: { port: { default: '3000', description: 'OPS_PORT' } },
      },
      {
        url: 'https://{apiId}.execute-api.{region}.amazonaws.com',
        description: 'a deployed stage (the stack output OpsApiUrl)',
        variables: {
          apiId: { default: 'apiid', description: 'the HTTP API id' },
          region: { default: 'eu-west-1', description: "the stage's region" },
        },
      },
      {
        url: 'https://{distribution}.cloudfront.net/api',
        description: "a deployed stage's console origin (the stack output ConsoleUrl)",
        variables: {
          distribution: { default: 'd111111abcdef8', description: 'the CloudFront domain label' },
        },
      },
    ],
    security: [{ awsSigV4: [] }, { operatorIdToken: [] }],
    paths,
    components: {
      schemas: generated.components,
      securitySchemes: {
        awsSigV4: {
          type: 'apiKey',
          name: 'Authorization',
          in: 'header',
          description:
            "AWS Signature Version 4 for service execute-api (IAM auth): a machine role with a caller policy, or an operator's identity-pool credentials",
          'x-amazon-apigateway-authtype': 'awsSigv4',
        },
        operatorIdToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'npm start only: the ID token of an operator of the local user pool (payouts login, then payouts token)',
        },
      },
    },
    'x-problem-types': PROBLEM_SLUGS.map((slug) => ({
      type: problemType(slug),
      statuses: [...PROBLEM_TYPES[slug].statuses],
      meaning: PROBLEM_TYPES[slug].meaning,
      ...(LOCAL_SERVER_PROBLEMS.some((local) => local === slug) && { localServerOnly: true }),
    })),
  };
}
