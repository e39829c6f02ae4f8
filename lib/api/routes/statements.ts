import { ApiError } from '../../api/errors.js';
import * as z from '../../shared/zod.js';
import type { StatementService, StatementStore } from '../../statements/index.js';
import {
  STATEMENT_LINE_KINDS,
  StatementDateSchema,
  type StatementLine,
  type StatementReport,
  toStatementCsv,
} from '../../statements/index.js';
import { parseBody, parseQuery } from '../request.js';
import { type Answers, type Route, type RouteRequest, reply, route } from '../router.js';
import { PageCursorSchema, queryInt } from '../schemas.js';

/** What the statement routes use: the stored reports, and the reconciliation for a person's re-run. */
export interface StatementsApi {
  readonly store: StatementStore;
  readonly service: StatementService;
}

const kobo = z.int().check(z.gte(-Number.MAX_SAFE_INTEGER), z.lte(Number.MAX_SAFE_INTEGER));
const text = (max: number) => z.string().check(z.maxLength(max));
const TallySchema = z.strictObject({ count: z.int(), amountKobo: kobo });

const StatementLineSchema = z.strictObject({
  kind: z.enum(STATEMENT_LINE_KINDS as [string, ...string[]]),
  key: text(200),
  transactionId: z.optional(text(200)),
  payoutId: z.optional(text(100)),
  attempt: z.optional(z.int()),
  type: z.optional(text(64)),
  category: z.optional(text(64)),
  status: z.optional(text(64)),
  amountKobo: kobo,
  chargesKobo: z.optional(kobo),
  expectedAmountKobo: z.optional(kobo),
  expectedChargesKobo: z.optional(kobo),
  destination: z.optional(text(200)),
  narration: z.optional(text(1000)),
  createdAt: z.optional(text(64)),
  detail: text(2000),
});

const StatementReportSchema = z.strictObject({
  date: text(10),
  timeZone: text(64),
  window: z.strictObject({ from: text(64), to: text(64) }),
  completeness: z.enum(['complete', 'incomplete']),
  pagesRead: z.int(),
  byKind: z.record(z.string(), TallySchema),
  findings: z.int(),
  providerTotals: z.strictObject({
    byType: z.record(z.string(), z.strictObject({ count: z.int(), amountKobo: kobo, chargesKobo: kobo })),
    byStatus: z.record(z.string(), TallySchema),
  }),
  movedToReview: z.array(text(100)),
  generatedAt: text(64),
  runs: z.array(z.strictObject({ by: text(200), at: text(64), newFindings: z.int() })),
});

const StatementPageSchema = z.strictObject({
  items: z.array(StatementReportSchema),
  nextCursor: z.optional(z.string()),
});
const StatementLinePageSchema = z.strictObject({
  items: z.array(StatementLineSchema),
  nextCursor: z.optional(z.string()),
});

export const ListStatementsQuerySchema = z.lazy(() =>
  z.strictObject({
    limit: z.optional(queryInt(1, 100, 'reports per page, 1 to 100, default 30')),
    cursor: z.optional(PageCursorSchema),
  }),
);
export const ListLinesQuerySchema = z.lazy(() =>
  z.strictObject({
    kind: z.optional(z.enum(STATEMENT_LINE_KINDS as [string, ...string[]])),
    limit: z.optional(queryInt(1, 500, 'lines per page, 1 to 500, default 100')),
    cursor: z.optional(PageCursorSchema),
  }),
);

const StatementCsvSchema = z
  .string()
  .check(
    z.describe(
      'RFC 4180 CSV with CRLF line ends, one row per line of the report (docs/statements.md, "The CSV")',
    ),
  );

/** The `{date}` parameter: a day that is not a calendar date names no report, a 404 like an unknown id. */
function dateParam(request: { readonly params: Readonly<Record<string, string>> }): string {
  const parsed = StatementDateSchema.safeParse(request.params.date);
  if (!parsed.success) throw new ApiError(404, 'not-found', 'Not found', 'date: must be a date, YYYY-MM-DD');
  return parsed.data;
}

/** A report as answered (its arrays copied: the stored report is read-only). */
function present(report: StatementReport): z.output<typeof StatementReportSchema> {
  return {
    ...report,
    byKind: { ...report.byKind },
    movedToReview: [...report.movedToReview],
    runs: report.runs.map((run) => ({ ...run })),
  };
}

async function storedReport(
  request: RouteRequest<'statements'>,
): Promise<{ report: StatementReport; runAt: string }> {
  const date = dateParam(request);
  const stored = await request.ctx.statements.store.getReport(date);
  if (!stored) throw new ApiError(404, 'not-found', 'Not found', `no statement for ${date}; run it first`);
  return stored;
}

async function listStatements(request: RouteRequest<'statements'>) {
  const query = parseQuery(request.event, ListStatementsQuerySchema);
  const page = await request.ctx.statements.store.listReports(query.limit ?? 30, query.cursor);
  return reply(200, {
    items: page.items.map(present),
    ...(page.nextCursor && { nextCursor: page.nextCursor }),
  });
}

async function getStatement(request: RouteRequest<'statements'>) {
  return reply(200, present((await storedReport(request)).report));
}

async function listLines(request: RouteRequest<'statements'>) {
  const query = parseQuery(request.event, ListLinesQuerySchema);
  const { report, runAt } = await storedReport(request);
  const page = await request.ctx.statements.store.listLines(report.date, runAt, {
    limit: query.limit ?? 100,
    ...(query.kind !== undefined && { kind: query.kind as StatementLine['kind'] }),
    ...(query.cursor !== undefined && { cursor: query.cursor }),
  });
  return reply(200, { items: page.items, ...(page.nextCursor && { nextCursor: page.nextCursor }) });
}

async function downloadCsv(request: RouteRequest<'statements'>) {
  const { report, runAt } = await storedReport(request);
  const lines = await request.ctx.statements.store.allLines(report.date, runAt);
  return reply(200, toStatementCsv(report, lines), {
    'content-disposition': `attachment; filename="statement-${report.date}.csv"`,
  });
}

/**
 * A person's re-run starts no unit of work with less than this left before the request's deadline: one unit and
 * the finishing writes (the report's read and put), each abandoned at STATEMENT_API_UNIT_DEADLINE_MS
 * (test/infra/handler-limits.test.ts).
 */
export const STATEMENT_API_STOP_BEFORE_DEADLINE_MS = 15_000;
/** Each unit of a person's re-run is abandoned after this long (the schedule's are given longer). */
export const STATEMENT_API_UNIT_DEADLINE_MS = 4_000;

/**
 * POST /statements/{date}/run: a person reconciles the day again within the request's deadline; the run is
 * recorded with who ran it. A day too big for the request is answered `incomplete`, and the next hourly run of
 * the schedule completes it (docs/statements.md).
 */
async function runStatement(request: RouteRequest<'statements'>) {
  parseBody(request.event, z.strictObject({}), {});
  const date = dateParam(request);
  const by = request.principal();
  const report = await request.ctx.statements.service.run(date, `${by.kind}:${by.id}`, {
    stopStartingAt: request.deadline.at - STATEMENT_API_STOP_BEFORE_DEADLINE_MS,
    unitDeadlineMs: STATEMENT_API_UNIT_DEADLINE_MS,
  });
  return reply(200, present(report));
}

const statementAnswer = { 200: { description: "the day's report", schema: StatementReportSchema } };

export const statementRoutes: readonly Route<Answers, 'statements'>[] = [
  route({
    method: 'GET',
    path: '/statements',
    responses: { 200: { description: 'the reports, newest day first', schema: StatementPageSchema } },
    problems: ['validation'],
    handler: listStatements,
  }),
  route({
    method: 'GET',
    path: '/statements/{date}',
    responses: statementAnswer,
    problems: ['not-found'],
    handler: getStatement,
  }),
  route({
    method: 'GET',
    path: '/statements/{date}/lines',
    responses: {
      200: { description: "a page of the day's lines, of one kind or all", schema: StatementLinePageSchema },
    },
    problems: ['validation', 'not-found'],
    handler: listLines,
  }),
  route({
    method: 'GET',
    path: '/statements/{date}/lines.csv',
    responses: {
      200: {
        description: "every line of the day's report",
        schema: StatementCsvSchema,
        mediaType: 'text/csv',
      },
    },
    problems: ['not-found'],
    handler: downloadCsv,
  }),
  route({
    method: 'POST',
    path: '/statements/{date}/run',
    responses: statementAnswer,
    problems: ['validation', 'unauthenticated', 'not-found', 'provider-unavailable', 'provider-error'],
    handler: runStatement,
  }),
];
