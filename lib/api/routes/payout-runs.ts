import { createHash } from 'node:crypto';
import {
  CreateRunJsonSchema,
  MAX_RUN_BODY_BYTES,
  MAX_RUN_ROWS,
  type PayoutRun,
  type RowResult,
  RUN_COLUMNS,
  RUN_CSV_COLUMNS,
  RunState,
  type RunView,
} from '../../payout-runs/index.js';
import { CsvFormatError, csvCell, parseCsvRecords } from '../../shared/csv.js';
import { clipText, FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import { ApiError, validationError } from '../errors.js';
import { failureOf, presentApproval, presentRejection, principal } from '../presenters.js';
import { idempotencyKeyOf, parseBody, parseQuery } from '../request.js';
import {
  CancelledPayoutRunSchema,
  PayoutRunPageSchema,
  PayoutRunRowPageSchema,
  type PayoutRunRowSchema,
  PayoutRunSchema,
  PayoutRunSummarySchema,
} from '../responses/payout-run.js';
import { type Answers, type Route, type RouteRequest, reply, route } from '../router.js';
import {
  ApproveRequestSchema,
  CancelRequestSchema,
  PageCursorSchema,
  PageLimitSchema,
  RejectRequestSchema,
} from '../schemas.js';

export const RunIdSchema = z.lazy(() =>
  z.string().check(z.regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a run id')),
);

/** `POST /payout-runs` query: `acknowledgeDuplicates=true` acknowledges the warnings of a CSV upload. */
export const CreateRunQuerySchema = z.lazy(() =>
  z.strictObject({ acknowledgeDuplicates: z.optional(z.enum(['true', 'false'])) }),
);
export const ListRunsQuerySchema = z.lazy(() =>
  z.strictObject({
    /** One state only (`pending_approval`: the runs waiting for a second person). */
    state: z.optional(z.enum(Object.values(RunState) as [RunState, ...RunState[]])),
    limit: z.optional(PageLimitSchema),
    cursor: z.optional(PageCursorSchema),
  }),
);
export const ListRunRowsQuerySchema = z.lazy(() =>
  z.strictObject({ limit: z.optional(PageLimitSchema), cursor: z.optional(PageCursorSchema) }),
);

/** Where a run is read. */
export const runLocation = (runId: string) => `/payout-runs/${runId}`;

function runId(request: RouteRequest<'payoutRuns'>): string {
  const parsed = RunIdSchema.safeParse(request.params.id);
  if (!parsed.success) throw new ApiError(404, 'not-found', 'Not found', 'no payout run has this id');
  return parsed.data;
}

const { word: WORD, reference: REFERENCE, text: TEXT } = FIELD_MAXIMA;

function presentRunFields(run: PayoutRun) {
  return {
    runId: run.runId,
    count: run.count,
    totalKobo: run.totalKobo,
    largestRows: run.largestRows.map((row) => ({ ...row })),
    fileSha256: run.fileSha256,
    source: run.source,
    requestedBy: principal(run.requestedBy),
    createdAt: run.createdAt,
    ...(run.approvalReason !== undefined && { approvalReason: clipText(run.approvalReason, TEXT) }),
    ...(run.approvedBy && { approvedBy: principal(run.approvedBy) }),
    ...(run.approvedAt !== undefined && { approvedAt: run.approvedAt }),
    ...(run.firstApproval && { firstApproval: presentApproval(run.firstApproval) }),
    materialised: run.materialised,
    ...(run.acknowledged && {
      acknowledged: {
        duplicateLines: run.acknowledged.duplicateLines,
        duplicateRunIds: run.acknowledged.duplicateRunIds.slice(0, 20),
      },
    }),
    ...(run.cancelledBy && { cancelledBy: principal(run.cancelledBy) }),
    ...(run.cancelledAt !== undefined && { cancelledAt: run.cancelledAt }),
    ...(run.rejection && { rejection: presentRejection(run.rejection) }),
    ...(run.endedAt !== undefined && { endedAt: run.endedAt }),
    location: runLocation(run.runId),
  };
}

/** A run just stored or changed, before its payouts are read: its status is its state. */
const presentStoredRun = (run: PayoutRun) => ({
  ...presentRunFields(run),
  status: run.state === 'materialised' ? ('sending' as const) : run.state,
});

function presentRunView(view: RunView): z.output<typeof PayoutRunSchema> {
  return {
    ...presentRunFields(view.run),
    status: view.status,
    counts: { ...view.counts },
    sentKobo: view.sentKobo,
    failedKobo: view.failedKobo,
    percentDone: view.percentDone,
    ...(view.etaSeconds !== undefined && { etaSeconds: view.etaSeconds }),
  };
}

function presentRow({ row, status, payout }: RowResult): z.output<typeof PayoutRunRowSchema> {
  const failure = row.failure ?? payout?.failure;
  return {
    row: row.index + 1,
    reference: row.reference,
    amountKobo: row.amountKobo,
    accountNumber: row.beneficiary.accountNumber,
    bankCode: row.beneficiary.bankCode,
    status,
    ...(row.payoutId !== undefined && { payoutId: row.payoutId }),
    ...(payout?.receipt?.reference !== undefined && {
      providerReference: clipText(payout.receipt.reference, REFERENCE),
    }),
    ...(failure && { failure: failureOf(failure) }),
  };
}

/** The body text, bounded (a run's file is larger than the API's usual JSON bodies). */
function bodyText(request: RouteRequest<'payoutRuns'>): string {
  const raw = request.event.body ?? '';
  const text = request.event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  if (Buffer.byteLength(text) > MAX_RUN_BODY_BYTES) {
    throw validationError([{ path: '(body)', message: `must be at most ${MAX_RUN_BODY_BYTES} bytes` }]);
  }
  if (text === '') throw validationError([{ path: '(body)', message: 'a CSV or JSON body is required' }]);
  return text;
}

/**
 * POST /payout-runs: a CSV (`text/csv`) or JSON `{ rows, acknowledgeDuplicates? }` body and an Idempotency-Key.
 * The whole file is validated first (400 naming each bad row and field; nothing stored, nothing sent); duplicate
 * lines and an earlier run of the same rows are a 409 until acknowledged. Answers 202 with the run and Location; a
 * retry with the same key and rows answers 200 with the same run.
 */
async function createRun(request: RouteRequest<'payoutRuns'>) {
  const idempotencyKey = idempotencyKeyOf(request.event);
  const query = parseQuery(request.event, CreateRunQuerySchema);
  const contentType = (request.event.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  const text = bodyText(request);
  const fileSha256 = createHash('sha256').update(text).digest('hex');
  let entries: readonly unknown[];
  let acknowledgeDuplicates = query.acknowledgeDuplicates === 'true';
  const source = contentType === 'text/csv' ? 'csv' : 'json';
  if (source === 'csv') {
    try {
      entries = parseCsvRecords(text, RUN_CSV_COLUMNS);
    } catch (error) {
      if (error instanceof CsvFormatError) throw validationError(error.issues);
      throw error;
    }
    if (entries.length === 0 || entries.length > MAX_RUN_ROWS) {
      throw validationError([{ path: '(body)', message: `must hold 1 to ${MAX_RUN_ROWS} rows` }]);
    }
  } else {
    const body = parseBody({ ...request.event, body: text, isBase64Encoded: false }, CreateRunJsonSchema);
    entries = body.rows;
    acknowledgeDuplicates ||= body.acknowledgeDuplicates === true;
  }
  const { run, replayed } = await request.ctx.payoutRuns.submit({
    entries,
    source,
    fileSha256,
    actor: request.principal(),
    idempotencyKey,
    acknowledgeDuplicates,
  });
  const location = { location: runLocation(run.runId) };
  if (replayed) return reply(200, presentStoredRun(run), { ...location, 'idempotent-replayed': 'true' });
  return reply(202, presentStoredRun(run), location);
}

async function listRuns(request: RouteRequest<'payoutRuns'>) {
  const query = parseQuery(request.event, ListRunsQuerySchema);
  const page = await request.ctx.payoutRuns.list({
    limit: query.limit ?? 20,
    ...(query.state !== undefined && { state: query.state }),
    ...(query.cursor !== undefined && { cursor: query.cursor }),
  });
  return reply(200, {
    items: page.items.map(presentStoredRun),
    ...(page.nextCursor && { nextCursor: page.nextCursor }),
  });
}

async function getRun(request: RouteRequest<'payoutRuns'>) {
  return reply(200, presentRunView(await request.ctx.payoutRuns.get(runId(request))));
}

async function approveRun(request: RouteRequest<'payoutRuns'>) {
  parseBody(request.event, z.strictObject({}), {});
  return reply(
    200,
    presentStoredRun(await request.ctx.payoutRuns.approve(runId(request), request.principal())),
  );
}

async function rejectRun(request: RouteRequest<'payoutRuns'>) {
  const { reason } = parseBody(request.event, RejectRequestSchema);
  return reply(
    200,
    presentStoredRun(await request.ctx.payoutRuns.reject(runId(request), request.principal(), reason)),
  );
}

async function cancelRun(request: RouteRequest<'payoutRuns'>) {
  const body = parseBody(request.event, CancelRequestSchema, {});
  const { run, cancelled, standing } = await request.ctx.payoutRuns.cancel(
    runId(request),
    request.principal(),
    body.reason,
  );
  return reply(200, { ...presentStoredRun(run), cancelledPayouts: cancelled, standingPayouts: standing });
}

async function listRunPayouts(request: RouteRequest<'payoutRuns'>) {
  const id = runId(request);
  const query = parseQuery(request.event, ListRunRowsQuerySchema);
  const page = await request.ctx.payoutRuns.payouts(id, {
    limit: query.limit ?? 50,
    ...(query.cursor !== undefined && { cursor: query.cursor }),
  });
  return reply(200, {
    items: page.items.map(presentRow),
    ...(page.nextCursor && { nextCursor: page.nextCursor }),
  });
}

/** The columns of a run's `results.csv`, in order (docs/payout-runs.md). */
export const RUN_RESULTS_COLUMNS = [
  'row',
  'reference',
  'payoutId',
  'status',
  'providerReference',
  'failure',
] as const;

/** The longest text of each results.csv cell (the proof of the answer's size reads these). */
export const RUN_RESULTS_CELL_MAXIMA = {
  row: 6,
  reference: 64,
  payoutId: WORD,
  status: WORD,
  providerReference: REFERENCE,
  failure: TEXT,
} as const satisfies Record<(typeof RUN_RESULTS_COLUMNS)[number], number>;

/** Rows in one part of results.csv: a run of 10,000 rows is 10 parts, each far below Lambda's 6 MB answer. */
export const RUN_RESULTS_PAGE_ROWS = 1_000;

export const ResultsCsvQuerySchema = z.lazy(() => z.strictObject({ cursor: z.optional(PageCursorSchema) }));

/** `results.csv`: the header row, then one line per row of the run in file order, CRLF line ends. */
export function runResultsCsv(results: readonly RowResult[]): string {
  const lines: string[] = [RUN_RESULTS_COLUMNS.join(',')];
  for (const result of results) {
    const shown = presentRow(result);
    lines.push(
      [
        csvCell(shown.row, RUN_RESULTS_CELL_MAXIMA.row),
        csvCell(shown.reference, RUN_RESULTS_CELL_MAXIMA.reference),
        csvCell(shown.payoutId, RUN_RESULTS_CELL_MAXIMA.payoutId),
        csvCell(shown.status, RUN_RESULTS_CELL_MAXIMA.status),
        csvCell(shown.providerReference, RUN_RESULTS_CELL_MAXIMA.providerReference),
        csvCell(
          shown.failure && `${shown.failure.code}: ${shown.failure.message}`,
          RUN_RESULTS_CELL_MAXIMA.failure,
        ),
      ].join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * GET /payout-runs/{id}/results.csv: up to RUN_RESULTS_PAGE_ROWS rows per part, in file order; a
 * `Link: <…?cursor=…>; rel="next"` header names the next part (the CLI's `payout-runs results` follows it and
 * writes one file).
 */
async function downloadResults(request: RouteRequest<'payoutRuns'>) {
  const id = runId(request);
  const query = parseQuery(request.event, ResultsCsvQuerySchema);
  const page = await request.ctx.payoutRuns.payouts(id, {
    limit: RUN_RESULTS_PAGE_ROWS,
    ...(query.cursor !== undefined && { cursor: query.cursor }),
  });
  return reply(200, runResultsCsv(page.items), {
    'content-disposition': `attachment; filename="payout-run-${id}.csv"`,
    ...(page.nextCursor && {
      link: `<${runLocation(id)}/results.csv?cursor=${encodeURIComponent(page.nextCursor)}>; rel="next"`,
    }),
  });
}

/** A `text/csv` payout run as the document describes it: its columns, from the service's own list. */
function runCsvSchema() {
  return z.string().check(
    z.describe(
      `one payout per row (1 to ${MAX_RUN_ROWS}), header row first. Columns: ` +
        Object.entries(RUN_COLUMNS)
          .map(([name, meaning]) => `${name} (${meaning})`)
          .join('; '),
    ),
  );
}

const ResultsCsvSchema = z
  .string()
  .check(
    z.describe(
      `RFC 4180 CSV with CRLF line ends; columns: ${RUN_RESULTS_COLUMNS.join(', ')} (docs/payout-runs.md)`,
    ),
  );

export const payoutRunRoutes: readonly Route<Answers, 'payoutRuns'>[] = [
  route({
    method: 'POST',
    path: '/payout-runs',
    operationId: 'createPayoutRun',
    summary:
      'Pay many people from one file (text/csv, or JSON `{ rows }`), approved once as a whole (docs/payout-runs.md). The whole file is validated first: 400 names every bad row and field (`rows[i].field`, or `row n.field` for a CSV), repeated references included; lines paying the same account the same amount, or the same rows as an earlier run, are 409 `duplicates-unacknowledged` until sent with `acknowledgeDuplicates`. Nothing is stored or sent on any refusal. 202: the run, `pending_approval` when its total or a row reaches the approval threshold, else `materialising`; the every-minute sweep turns its rows into payouts',
    request: {
      query: CreateRunQuerySchema,
      idempotencyKey: 'required',
      body: { schema: CreateRunJsonSchema, csv: runCsvSchema() },
    },
    cli: {
      words: ['payout-runs', 'create'],
      summary:
        'create a run from a CSV file (--csv FILE, or --body run.csv) or JSON { rows }; 202 with the run (after a 409 for duplicates: --query acknowledgeDuplicates=true)',
      aliases: [['runs', 'create']],
    },
    role: 'requester',
    responses: {
      200: {
        description:
          'replay of the same Idempotency-Key and rows: the run the first request created; headers Idempotent-Replayed: true and Location',
        schema: PayoutRunSummarySchema,
      },
      202: {
        description:
          'accepted: `pending_approval` (a second person must approve) or `materialising`; header Location: /payout-runs/{runId}. No payout created or sent yet',
        schema: PayoutRunSummarySchema,
      },
    },
    problems: ['validation', 'unauthenticated', 'idempotency-conflict', 'duplicates-unacknowledged'],
    handler: createRun,
  }),
  route({
    method: 'GET',
    path: '/payout-runs',
    operationId: 'listPayoutRuns',
    summary: 'Payout runs, newest first (`GET` one for its progress)',
    request: { query: ListRunsQuerySchema },
    cli: {
      words: ['payout-runs', 'list'],
      summary: 'payout runs, newest first (--state pending_approval: those waiting for a second person)',
      aliases: [['runs', 'list']],
      list: true,
      query: ['state', 'limit'],
    },
    role: 'viewer',
    responses: { 200: { description: 'a page of runs, newest first', schema: PayoutRunPageSchema } },
    problems: ['validation'],
    handler: listRuns,
  }),
  route({
    method: 'GET',
    path: '/payout-runs/{id}',
    operationId: 'getPayoutRun',
    summary:
      "A payout run: count, total, largest rows and the file's SHA-256 (what the approver checks), rows by payout status, amounts sent and failed, percent done, ETA",
    request: { params: { id: RunIdSchema } },
    cli: {
      words: ['payout-runs', 'get'],
      summary:
        'a run: count, total, largest rows, checksum, rows by status, progress (--watch: a progress bar until it ends)',
      aliases: [['runs', 'show']],
      watch: true,
    },
    role: 'viewer',
    responses: {
      200: {
        description:
          'the run: what the approver checks, rows counted by payout status, amounts sent and failed, ETA',
        schema: PayoutRunSchema,
      },
    },
    problems: ['not-found'],
    handler: getRun,
  }),
  route({
    method: 'POST',
    path: '/payout-runs/{id}/approve',
    operationId: 'approvePayoutRun',
    summary:
      'A second person approves the run as a whole (never its requester, never a system); the gate judges it again with the limits in force',
    request: { params: { id: RunIdSchema }, body: { schema: ApproveRequestSchema, required: false } },
    cli: {
      words: ['payout-runs', 'approve'],
      summary: 'approve a whole run as the second person',
      aliases: [['runs', 'approve']],
      confirmFrom: '/payout-runs/{id}',
    },
    role: 'approver',
    responses: {
      200: {
        description: 'approved: its rows become payouts approved by the caller',
        schema: PayoutRunSummarySchema,
      },
    },
    problems: ['validation', 'unauthenticated', 'not-found', 'approval-forbidden', 'invalid-transition'],
    handler: approveRun,
  }),
  route({
    method: 'POST',
    path: '/payout-runs/{id}/reject',
    operationId: 'rejectPayoutRun',
    summary:
      'A second person rejects a run waiting for approval, with the reason (never its requester, who cancels instead): it ends `cancelled` with its `rejection`, none of its rows sent',
    request: { params: { id: RunIdSchema }, body: { schema: RejectRequestSchema } },
    cli: {
      words: ['payout-runs', 'reject'],
      summary: 'reject a run waiting for approval, as the second person, with --reason; none of it is sent',
      aliases: [['runs', 'reject']],
      bodyFlags: ['reason'],
      confirmFrom: '/payout-runs/{id}',
    },
    role: 'approver',
    responses: {
      200: {
        description:
          'rejected: `cancelled` with its `rejection` (who, why, when); none of its rows is ever sent',
        schema: PayoutRunSummarySchema,
      },
    },
    problems: ['validation', 'unauthenticated', 'not-found', 'approval-forbidden', 'invalid-transition'],
    handler: rejectRun,
  }),
  route({
    method: 'POST',
    path: '/payout-runs/{id}/cancel',
    operationId: 'cancelPayoutRun',
    summary: 'Cancel a run: payouts not yet claimed are cancelled, rows already sent stand',
    request: { params: { id: RunIdSchema }, body: { schema: CancelRequestSchema, required: false } },
    cli: {
      words: ['payout-runs', 'cancel'],
      summary: 'cancel the rows not yet sent; rows already sent stand',
      aliases: [['runs', 'cancel']],
      bodyFlags: ['reason'],
    },
    role: 'requester',
    responses: {
      200: {
        description: 'cancelled: payouts not yet claimed are cancelled, those already sent stand',
        schema: CancelledPayoutRunSchema,
      },
    },
    problems: ['validation', 'unauthenticated', 'not-found', 'invalid-transition'],
    handler: cancelRun,
  }),
  route({
    method: 'GET',
    path: '/payout-runs/{id}/payouts',
    operationId: 'listPayoutRunPayouts',
    summary: "The run's rows with their payouts, in file order, page by page",
    request: { params: { id: RunIdSchema }, query: ListRunRowsQuerySchema },
    cli: {
      words: ['payout-runs', 'payouts'],
      summary: "the run's rows with their payouts, in file order",
      aliases: [['runs', 'payouts']],
      list: true,
      query: ['limit'],
    },
    role: 'viewer',
    responses: {
      200: {
        description: "a page of the run's rows with their payouts, in file order",
        schema: PayoutRunRowPageSchema,
      },
    },
    problems: ['validation', 'not-found'],
    handler: listRunPayouts,
  }),
  route({
    method: 'GET',
    path: '/payout-runs/{id}/results.csv',
    operationId: 'downloadPayoutRunResults',
    summary:
      'Every row\'s result as CSV (row, reference, payoutId, status, providerReference, failure), 1,000 rows per part; a `Link` header with rel="next" names the next part',
    request: { params: { id: RunIdSchema }, query: ResultsCsvQuerySchema },
    cli: {
      words: ['payout-runs', 'results'],
      summary: 'the result of every row as one CSV (fetched in parts of 1,000 rows)',
      aliases: [['runs', 'results']],
      parts: true,
    },
    role: 'viewer',
    responses: {
      200: { description: "every row's result", schema: ResultsCsvSchema, mediaType: 'text/csv' },
    },
    problems: ['validation', 'not-found'],
    handler: downloadResults,
  }),
];
