import { ApiError } from '../../api/errors.js';
import { PAYOUT_STATUSES, PAYOUT_TYPES, type PayoutStatus, type PayoutType } from '../../payouts/index.js';
import { clipText, FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import {
  STATEMENT_LINE_KINDS,
  StatementDateSchema,
  type StatementLine,
  type StatementReport,
  toStatementCsv,
} from '../../statements/index.js';
import { parseBody, parseQuery } from '../request.js';

export type { StatementsApi } from '../services.js';

import { type Answers, type Route, type RouteRequest, reply, route } from '../router.js';
import { PageCursorSchema, queryInt } from '../schemas.js';

const kobo = z.int().check(z.gte(-Number.MAX_SAFE_INTEGER), z.lte(Number.MAX_SAFE_INTEGER));
const text = (max: number) => z.string().check(z.maxLength(max));
const TallySchema = z.strictObject({ count: z.int(), amountKobo: kobo });
const { word: WORD, reference: REFERENCE, name: NAME, text: TEXT, instant: INSTANT } = FIELD_MAXIMA;

/** The longest texts of a line as answered; the stored line is clipped to them (`presentLine`). */
export const STATEMENT_LINE_MAXIMA = {
  key: 200,
  transactionId: REFERENCE,
  payoutId: REFERENCE,
  refundId: REFERENCE,
  type: WORD,
  category: WORD,
  status: WORD,
  destination: NAME,
  narration: NAME,
  createdAt: INSTANT,
  detail: TEXT,
} as const;
/** Provider types and statuses answered in a report's totals (a few in practice: DEBIT, CREDIT; SUCCESS, …). */
export const STATEMENT_TOTALS_KEYS = 20;
/** Runs of a day answered (the newest), and payouts moved to review named at once. */
export const STATEMENT_RUNS_ANSWERED = 20;
export const STATEMENT_REVIEWS_ANSWERED = FIELD_MAXIMA.page;
/** Lines in one page of `lines.csv`: with every cell at its maximum the page stays far below Lambda's 6 MB. */
export const STATEMENT_CSV_PAGE_LINES = 500;

const StatementLineSchema = z.strictObject({
  kind: z.enum(STATEMENT_LINE_KINDS as [string, ...string[]]),
  key: text(STATEMENT_LINE_MAXIMA.key),
  transactionId: z.optional(text(STATEMENT_LINE_MAXIMA.transactionId)),
  payoutId: z.optional(text(STATEMENT_LINE_MAXIMA.payoutId)),
  refundId: z.optional(text(STATEMENT_LINE_MAXIMA.refundId)),
  attempt: z.optional(z.int()),
  type: z.optional(text(STATEMENT_LINE_MAXIMA.type)),
  category: z.optional(text(STATEMENT_LINE_MAXIMA.category)),
  status: z.optional(text(STATEMENT_LINE_MAXIMA.status)),
  amountKobo: kobo,
  chargesKobo: z.optional(kobo),
  expectedAmountKobo: z.optional(kobo),
  expectedChargesKobo: z.optional(kobo),
  destination: z.optional(text(STATEMENT_LINE_MAXIMA.destination)),
  narration: z.optional(text(STATEMENT_LINE_MAXIMA.narration)),
  createdAt: z.optional(text(STATEMENT_LINE_MAXIMA.createdAt)),
  detail: text(STATEMENT_LINE_MAXIMA.detail),
});

const totals = <T extends z.ZodMiniType>(value: T) =>
  z.record(text(WORD), value).check(z.meta({ maxProperties: STATEMENT_TOTALS_KEYS }));

/** Our payouts created on the day by status and by type: every status and type, so its size is fixed. */
const PayoutTotalsSchema = z.strictObject({
  complete: z.boolean(),
  count: z.int(),
  amountKobo: kobo,
  byStatus: z.record(z.enum(PAYOUT_STATUSES as [PayoutStatus, ...PayoutStatus[]]), TallySchema),
  byType: z.record(z.enum(PAYOUT_TYPES as [PayoutType, ...PayoutType[]]), TallySchema),
});

const StatementReportSchema = z.strictObject({
  date: text(10),
  timeZone: text(64),
  window: z.strictObject({ from: text(64), to: text(64) }),
  completeness: z.enum(['complete', 'incomplete']),
  pagesRead: z.int(),
  byKind: z.record(z.enum(STATEMENT_LINE_KINDS as [string, ...string[]]), TallySchema),
  findings: z.int(),
  providerTotals: z.strictObject({
    byType: totals(z.strictObject({ count: z.int(), amountKobo: kobo, chargesKobo: kobo })),
    byStatus: totals(TallySchema),
  }),
  /** Absent on reports whose run stopped before counting them, and on those stored before they were counted. */
  payoutTotals: z.optional(PayoutTotalsSchema),
  movedToReview: z.array(text(REFERENCE)).check(z.maxLength(STATEMENT_REVIEWS_ANSWERED)),
  /** How many more payouts were moved to review than `movedToReview` names. */
  movedToReviewOmitted: z.optional(z.int()),
  generatedAt: text(64),
  runs: z
    .array(z.strictObject({ by: text(FIELD_MAXIMA.id), at: text(64), newFindings: z.int() }))
    .check(z.maxLength(STATEMENT_RUNS_ANSWERED)),
});

/** A report as listed: its totals and the newest run; `GET /statements/{date}` answers it whole. */
const StatementSummarySchema = z.strictObject({
  ...z.omit(StatementReportSchema, { movedToReview: true, movedToReviewOmitted: true, runs: true }).shape,
  movedToReviewCount: z.int(),
  lastRun: z.optional(z.strictObject({ by: text(FIELD_MAXIMA.id), at: text(64), newFindings: z.int() })),
});

/** Reports per page of `GET /statements` (a month and a day). */
const STATEMENTS_PAGE = 31;
/** Lines per page of `GET /statements/{date}/lines`. */
const STATEMENT_LINES_PAGE = 200;

const StatementPageSchema = z.strictObject({
  items: z.array(StatementSummarySchema).check(z.maxLength(STATEMENTS_PAGE)),
  nextCursor: z.optional(text(FIELD_MAXIMA.cursor)),
});
const StatementLinePageSchema = z.strictObject({
  items: z.array(StatementLineSchema).check(z.maxLength(STATEMENT_LINES_PAGE)),
  nextCursor: z.optional(text(FIELD_MAXIMA.cursor)),
});

export const ListStatementsQuerySchema = z.lazy(() =>
  z.strictObject({
    limit: z.optional(queryInt(1, STATEMENTS_PAGE, `reports per page, 1 to ${STATEMENTS_PAGE}, default 30`)),
    cursor: z.optional(PageCursorSchema),
  }),
);
export const ListLinesQuerySchema = z.lazy(() =>
  z.strictObject({
    kind: z.optional(z.enum(STATEMENT_LINE_KINDS as [string, ...string[]])),
    limit: z.optional(
      queryInt(1, STATEMENT_LINES_PAGE, `lines per page, 1 to ${STATEMENT_LINES_PAGE}, default 100`),
    ),
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

/** The first `STATEMENT_TOTALS_KEYS` entries of a provider's totals, their names clipped. */
function clipTotals<T>(record: Readonly<Record<string, T>>): Record<string, T> {
  return Object.fromEntries(
    Object.entries(record)
      .slice(0, STATEMENT_TOTALS_KEYS)
      .map(([name, tally]) => [clipText(name, WORD), tally]),
  );
}

/** Payout totals as answered: each status and type the schema names, copied (the stored report is read-only). */
function presentPayoutTotals(totals: NonNullable<StatementReport['payoutTotals']>) {
  const tally = (t: { count: number; amountKobo: number } | undefined) => ({
    count: t?.count ?? 0,
    amountKobo: t?.amountKobo ?? 0,
  });
  return {
    complete: totals.complete,
    count: totals.count,
    amountKobo: totals.amountKobo,
    byStatus: Object.fromEntries(PAYOUT_STATUSES.map((s) => [s, tally(totals.byStatus[s])])) as Record<
      PayoutStatus,
      { count: number; amountKobo: number }
    >,
    byType: Object.fromEntries(PAYOUT_TYPES.map((t) => [t, tally(totals.byType[t])])) as Record<
      PayoutType,
      { count: number; amountKobo: number }
    >,
  };
}

/** A report as answered: copied (the stored report is read-only) and clipped to the answer's maxima. */
function present(report: StatementReport): z.output<typeof StatementReportSchema> {
  const omitted = report.movedToReview.length - STATEMENT_REVIEWS_ANSWERED;
  return {
    ...report,
    byKind: { ...report.byKind },
    providerTotals: {
      byType: clipTotals(report.providerTotals.byType),
      byStatus: clipTotals(report.providerTotals.byStatus),
    },
    ...(report.payoutTotals && { payoutTotals: presentPayoutTotals(report.payoutTotals) }),
    movedToReview: report.movedToReview.slice(0, STATEMENT_REVIEWS_ANSWERED),
    ...(omitted > 0 && { movedToReviewOmitted: omitted }),
    runs: report.runs
      .slice(0, STATEMENT_RUNS_ANSWERED)
      .map((run) => ({ ...run, by: clipText(run.by, FIELD_MAXIMA.id) })),
  };
}

/** A report as listed: the whole report but the payouts it moved (counted) and its runs (the newest). */
function summarise(report: StatementReport): z.output<typeof StatementSummarySchema> {
  const { movedToReview: _moved, movedToReviewOmitted: _omitted, runs: _runs, ...totals } = present(report);
  const [lastRun] = report.runs;
  return {
    ...totals,
    movedToReviewCount: report.movedToReview.length,
    ...(lastRun && { lastRun: { ...lastRun, by: clipText(lastRun.by, FIELD_MAXIMA.id) } }),
  };
}

/** A line as answered, its texts clipped (the provider's narrations and destinations are its own). */
export function presentLine(line: StatementLine): StatementLine {
  const clipped: Record<string, unknown> = { ...line };
  for (const [name, max] of Object.entries(STATEMENT_LINE_MAXIMA)) {
    const value = clipped[name];
    if (typeof value === 'string') clipped[name] = clipText(value, max);
  }
  return clipped as unknown as StatementLine;
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
    items: page.items.map(summarise),
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
  return reply(200, {
    items: page.items.map(presentLine),
    ...(page.nextCursor && { nextCursor: page.nextCursor }),
  });
}

export const StatementCsvQuerySchema = z.lazy(() => z.strictObject({ cursor: z.optional(PageCursorSchema) }));

/**
 * GET /statements/{date}/lines.csv: up to STATEMENT_CSV_PAGE_LINES lines per download, so a day of any size fits
 * Lambda's 6 MB answer; a `Link: <…?cursor=…>; rel="next"` header names the next part (the CLI's
 * `statements csv` follows it and writes one file).
 */
async function downloadCsv(request: RouteRequest<'statements'>) {
  const query = parseQuery(request.event, StatementCsvQuerySchema);
  const { report, runAt } = await storedReport(request);
  const page = await request.ctx.statements.store.listLines(report.date, runAt, {
    limit: STATEMENT_CSV_PAGE_LINES,
    ...(query.cursor !== undefined && { cursor: query.cursor }),
  });
  return reply(200, toStatementCsv(report, page.items.map(presentLine)), {
    'content-disposition': `attachment; filename="statement-${report.date}.csv"`,
    ...(page.nextCursor && {
      link: `</statements/${report.date}/lines.csv?cursor=${encodeURIComponent(page.nextCursor)}>; rel="next"`,
    }),
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
    operationId: 'listStatements',
    summary: "The daily statements against the provider's wallet records, newest day first",
    request: { query: ListStatementsQuerySchema },
    cli: {
      words: ['statements', 'list'],
      summary: 'daily statement reports, newest day first',
      list: true,
      query: ['limit'],
    },
    role: 'viewer',
    responses: { 200: { description: 'the reports, newest day first', schema: StatementPageSchema } },
    problems: ['validation'],
    handler: listStatements,
  }),
  route({
    method: 'GET',
    path: '/statements/{date}',
    operationId: 'getStatement',
    summary: "One day's report: lines and amounts per kind, the provider's totals, who ran it",
    request: { params: { date: StatementDateSchema } },
    cli: { words: ['statements', 'show'], summary: "a day's report: totals per kind, balances, who ran it" },
    role: 'viewer',
    responses: statementAnswer,
    problems: ['not-found'],
    handler: getStatement,
  }),
  route({
    method: 'GET',
    path: '/statements/{date}/lines',
    operationId: 'listStatementLines',
    summary: "A page of the day's lines, of one kind or all (docs/statements.md)",
    request: { params: { date: StatementDateSchema }, query: ListLinesQuerySchema },
    cli: {
      words: ['statements', 'lines'],
      summary: "the day's lines, of one kind (--kind provider_not_ours) or all",
      list: true,
      query: ['kind', 'limit'],
    },
    role: 'viewer',
    responses: {
      200: { description: "a page of the day's lines, of one kind or all", schema: StatementLinePageSchema },
    },
    problems: ['validation', 'not-found'],
    handler: listLines,
  }),
  route({
    method: 'GET',
    path: '/statements/{date}/lines.csv',
    operationId: 'downloadStatementCsv',
    summary:
      'Every line of the day\'s report as CSV, 500 lines per part; a `Link` header with rel="next" names the next part',
    request: { params: { date: StatementDateSchema }, query: StatementCsvQuerySchema },
    cli: {
      words: ['statements', 'csv'],
      summary: "every line of the day's report as one CSV (fetched in parts of 500 lines)",
      parts: true,
    },
    role: 'viewer',
    responses: {
      200: {
        description: "every line of the day's report",
        schema: StatementCsvSchema,
        mediaType: 'text/csv',
      },
    },
    problems: ['validation', 'not-found'],
    handler: downloadCsv,
  }),
  route({
    method: 'POST',
    path: '/statements/{date}/run',
    operationId: 'runStatement',
    summary:
      'Reconcile the day again; idempotent: the same findings, nothing raised twice, no second needs_review. The run records who ran it',
    request: { params: { date: StatementDateSchema } },
    cli: {
      words: ['statements', 'run'],
      summary: 'reconcile the day again now (idempotent; records who ran it)',
    },
    role: 'admin',
    responses: statementAnswer,
    problems: ['validation', 'unauthenticated', 'not-found', 'provider-unavailable', 'provider-error'],
    handler: runStatement,
  }),
];
