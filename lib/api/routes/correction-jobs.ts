import type { CorrectionJob, JobItem, JobView } from '../../bulk-corrections/index.js';
import { csvCell } from '../../shared/csv.js';
import { clipText, FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import { ApiError } from '../errors.js';
import { failureOf, issueOf, principal } from '../presenters.js';
import { parseQuery } from '../request.js';
import {
  CorrectionJobItemPageSchema,
  type CorrectionJobItemSchema,
  CorrectionJobPageSchema,
  CorrectionJobSchema,
} from '../responses/correction-job.js';
import { type Answers, type Route, type RouteRequest, reply, route } from '../router.js';
import { pageOnlyQuery } from '../schemas.js';

export const JobIdSchema = z.lazy(() =>
  z.string().check(z.regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a job id')),
);

/** Where a job is read. */
export const jobLocation = (jobId: string) => `/bulk-correction-jobs/${jobId}`;

/** A job with its counts, and where it is read. */
export const presentAcceptedJob = (job: JobView): z.output<typeof CorrectionJobSchema> => ({
  ...job,
  requestedBy: principal(job.requestedBy),
  counts: { ...job.counts },
  progress: { ...job.progress },
  location: jobLocation(job.jobId),
});

const presentJobSummary = (job: CorrectionJob) => ({
  jobId: job.jobId,
  total: job.total,
  source: job.source,
  requestedBy: principal(job.requestedBy),
  createdAt: job.createdAt,
  location: jobLocation(job.jobId),
});

function jobId(request: RouteRequest<'correctionJobs'>): string {
  const parsed = JobIdSchema.safeParse(request.params.id);
  if (!parsed.success) throw new ApiError(404, 'not-found', 'Not found', 'no correction job has this id');
  return parsed.data;
}

/** `GET /bulk-correction-jobs` and `GET /bulk-correction-jobs/{id}/items`: a page. */
export const ListCorrectionJobsQuerySchema = pageOnlyQuery();

const { word: WORD, name: NAME, text: TEXT } = FIELD_MAXIMA;

/** A row as answered: the provider's reason and any failure clipped to the schema's maxima. */
function presentItem(item: JobItem): z.output<typeof CorrectionJobItemSchema> {
  const result = item.result;
  const fields = Object.fromEntries(
    Object.entries(item.fields).map(([field, value]) => [
      field,
      typeof value === 'string' ? clipText(value, NAME) : value,
    ]),
  );
  return {
    row: item.index + 1,
    bulkPayoutItemId: clipText(item.bulkPayoutItemId, WORD),
    fields,
    status: item.status,
    ...(item.status === 'pending_approval' && {
      correctionId: clipText(item.correctionId, WORD),
      approve: `/bulk-payout-items/${item.bulkPayoutItemId}/corrections/${item.correctionId}/approve`,
    }),
    ...(result?.isValid !== undefined && { isValid: result.isValid }),
    ...(result?.reason !== undefined && {
      reason: result.reason === null ? null : clipText(result.reason, TEXT),
    }),
    ...(result?.approvalReason !== undefined && { approvalReason: clipText(result.approvalReason, TEXT) }),
    ...(result?.failure && {
      failure: failureOf(result.failure),
    }),
    ...(result?.issues && {
      issues: result.issues.slice(0, FIELD_MAXIMA.rowIssues).map(issueOf),
    }),
    updatedAt: item.updatedAt,
  };
}

/** The columns of `results.csv`, in order (docs/bulk-corrections.md describes each). */
export const RESULTS_CSV_COLUMNS = [
  'row',
  'bulkPayoutItemId',
  'status',
  'isValid',
  'reason',
  'correctionId',
  'failureCode',
  'failureMessage',
  'issues',
  'updatedAt',
] as const;

type ResultsColumn = (typeof RESULTS_CSV_COLUMNS)[number];

/**
 * The longest each cell of `results.csv` may be, in characters before quoting: longer texts (a provider's reason
 * or message) are clipped, so the file of a job at its largest (MAX_BATCH_CORRECTIONS rows) fits one Lambda
 * answer (test/infra/api-answer-sizes.test.ts). The full texts stay on `GET /bulk-correction-jobs/{id}/items`.
 */
export const RESULTS_CSV_CELL_MAXIMA: Readonly<Record<ResultsColumn, number>> = {
  row: 6,
  bulkPayoutItemId: FIELD_MAXIMA.word,
  status: FIELD_MAXIMA.word,
  isValid: 5,
  reason: 500,
  correctionId: FIELD_MAXIMA.word,
  failureCode: FIELD_MAXIMA.word,
  failureMessage: 500,
  issues: FIELD_MAXIMA.text,
  updatedAt: FIELD_MAXIMA.instant,
};

/** `results.csv`: the header row, then one row per correction in batch order, CRLF line ends. */
export function resultsCsv(items: readonly JobItem[]): string {
  const lines = [RESULTS_CSV_COLUMNS.join(',')];
  for (const item of items) {
    const cells: Record<ResultsColumn, unknown> = {
      row: item.index + 1,
      bulkPayoutItemId: item.bulkPayoutItemId,
      status: item.status,
      isValid: item.result?.isValid,
      reason: item.result?.reason ?? item.result?.approvalReason,
      correctionId: item.status === 'pending_approval' ? item.correctionId : undefined,
      failureCode: item.result?.failure?.code,
      failureMessage: item.result?.failure?.message,
      issues: item.result?.issues?.map((issue) => `${issue.path}: ${issue.message}`).join('; '),
      updatedAt: item.updatedAt,
    };
    lines.push(
      RESULTS_CSV_COLUMNS.map((column) => csvCell(cells[column], RESULTS_CSV_CELL_MAXIMA[column])).join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

async function listJobs(request: RouteRequest<'correctionJobs'>) {
  const query = parseQuery(request.event, ListCorrectionJobsQuerySchema);
  const page = await request.ctx.correctionJobs.list({
    limit: query.limit ?? 20,
    ...(query.cursor !== undefined && { cursor: query.cursor }),
  });
  return reply(200, {
    items: page.items.map(presentJobSummary),
    ...(page.nextCursor && { nextCursor: page.nextCursor }),
  });
}

async function getJob(request: RouteRequest<'correctionJobs'>) {
  return reply(200, presentAcceptedJob(await request.ctx.correctionJobs.get(jobId(request))));
}

async function listItems(request: RouteRequest<'correctionJobs'>) {
  const id = jobId(request);
  const query = parseQuery(request.event, ListCorrectionJobsQuerySchema);
  const page = await request.ctx.correctionJobs.items(id, {
    limit: query.limit ?? 50,
    ...(query.cursor !== undefined && { cursor: query.cursor }),
  });
  return reply(200, {
    items: page.items.map(presentItem),
    ...(page.nextCursor && { nextCursor: page.nextCursor }),
  });
}

async function downloadResults(request: RouteRequest<'correctionJobs'>) {
  const id = jobId(request);
  const items = await request.ctx.correctionJobs.allItems(id);
  return reply(200, resultsCsv(items), {
    'content-disposition': `attachment; filename="correction-job-${id}.csv"`,
  });
}

async function requeueJob(request: RouteRequest<'correctionJobs'>) {
  return reply(202, presentAcceptedJob(await request.ctx.correctionJobs.requeue(jobId(request))));
}

/** The results CSV: one header row, then one row per correction in batch order. */
const ResultsCsvSchema = z
  .string()
  .check(
    z.describe(
      `RFC 4180 CSV with CRLF line ends; columns: ${RESULTS_CSV_COLUMNS.join(', ')} (docs/bulk-corrections.md); ` +
        'long texts are clipped (ending in …), control characters replaced by U+FFFD',
    ),
  );

export const correctionJobRoutes: readonly Route<Answers, 'correctionJobs'>[] = [
  route({
    method: 'GET',
    path: '/bulk-correction-jobs',
    operationId: 'listCorrectionJobs',
    summary: 'Correction jobs, newest first (`GET` one for its counts)',
    request: { query: ListCorrectionJobsQuerySchema },
    cli: {
      words: ['correction-jobs', 'list'],
      summary: 'correction jobs, newest first',
      list: true,
      query: ['limit'],
    },
    role: 'viewer',
    responses: { 200: { description: 'a page of jobs, newest first', schema: CorrectionJobPageSchema } },
    problems: ['validation'],
    handler: listJobs,
  }),
  route({
    method: 'GET',
    path: '/bulk-correction-jobs/{id}',
    operationId: 'getCorrectionJob',
    summary: 'A correction job: status, rows counted per state, progress',
    request: { params: { id: JobIdSchema } },
    cli: {
      words: ['correction-jobs', 'get'],
      summary: 'a correction job: status, counts per state, progress',
    },
    role: 'viewer',
    responses: {
      200: { description: 'the job: status, rows counted per state, progress', schema: CorrectionJobSchema },
    },
    problems: ['not-found'],
    handler: getJob,
  }),
  route({
    method: 'GET',
    path: '/bulk-correction-jobs/{id}/items',
    operationId: 'listCorrectionJobItems',
    summary: "The job's rows with their results, in row order, page by page",
    request: { params: { id: JobIdSchema }, query: ListCorrectionJobsQuerySchema },
    cli: {
      words: ['correction-jobs', 'items'],
      summary: 'the rows of a job with their results, in row order',
      list: true,
      query: ['limit'],
    },
    role: 'viewer',
    responses: {
      200: { description: "a page of the job's rows, in row order", schema: CorrectionJobItemPageSchema },
    },
    problems: ['validation', 'not-found'],
    handler: listItems,
  }),
  route({
    method: 'GET',
    path: '/bulk-correction-jobs/{id}/results.csv',
    operationId: 'downloadCorrectionJobResults',
    summary: "Every row's result as CSV, one row per correction in batch order (docs/bulk-corrections.md)",
    request: { params: { id: JobIdSchema } },
    cli: { words: ['correction-jobs', 'results'], summary: 'the results of every row as CSV' },
    role: 'viewer',
    responses: {
      200: { description: "every row's result", schema: ResultsCsvSchema, mediaType: 'text/csv' },
    },
    problems: ['not-found'],
    handler: downloadResults,
  }),
  route({
    method: 'POST',
    path: '/bulk-correction-jobs/{id}/requeue',
    operationId: 'requeueCorrectionJob',
    summary:
      'Hand the rows still queued (or left claimed) to the workers again, after the queue refused them or they were dead-lettered; nothing is sent twice',
    request: { params: { id: JobIdSchema } },
    cli: {
      words: ['correction-jobs', 'requeue'],
      summary: 'hand the rows still queued to the workers again (nothing is sent twice)',
    },
    role: 'requester',
    responses: {
      202: {
        description: 'the rows still queued were handed to the workers again',
        schema: CorrectionJobSchema,
      },
    },
    problems: ['not-found', 'not-configured', 'not-enqueued'],
    handler: requeueJob,
  }),
];
