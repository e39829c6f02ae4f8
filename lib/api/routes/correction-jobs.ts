import type { JobItem } from '../../bulk-corrections/job-model.js';
import * as z from '../../shared/zod.js';
import { ApiError } from '../errors.js';
import { parseQuery } from '../request.js';
import type { Route, RouteRequest, RouteResult } from '../router.js';
import { ListPayoutsQuerySchema } from '../schemas.js';

const JobIdSchema = z.string().check(z.regex(/^[0-9A-HJKMNP-TV-Z]{26}$/));

function jobId(request: RouteRequest): string {
  const parsed = JobIdSchema.safeParse(request.params.id);
  if (!parsed.success) throw new ApiError(404, 'not-found', 'Not found', 'no correction job has this id');
  return parsed.data;
}

/** `GET /bulk-correction-jobs` and `GET /bulk-correction-jobs/{id}/items`: a page. */
export const ListCorrectionJobsQuerySchema = z.strictObject({
  limit: ListPayoutsQuerySchema.shape.limit,
  cursor: ListPayoutsQuerySchema.shape.cursor,
});

const presentItem = (item: JobItem) => ({
  row: item.index + 1,
  bulkPayoutItemId: item.bulkPayoutItemId,
  fields: item.fields,
  status: item.status,
  ...(item.status === 'pending_approval' && {
    correctionId: item.correctionId,
    approve: `/bulk-payout-items/${item.bulkPayoutItemId}/corrections/${item.correctionId}/approve`,
  }),
  ...item.result,
  updatedAt: item.updatedAt,
});

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

function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = String(value);
  // Quoted when needed; a leading =, +, - or @ is prefixed so a spreadsheet never runs a cell as a formula.
  const safe = /^[=+\-@]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function resultsCsv(items: readonly JobItem[]): string {
  const lines = [RESULTS_CSV_COLUMNS.join(',')];
  for (const item of items) {
    const cells: Record<(typeof RESULTS_CSV_COLUMNS)[number], unknown> = {
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
    lines.push(RESULTS_CSV_COLUMNS.map((column) => csvCell(cells[column])).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

async function listJobs(request: RouteRequest): Promise<RouteResult> {
  const query = parseQuery(request.event, ListCorrectionJobsQuerySchema);
  const page = await request.ctx.correctionJobs.list({
    limit: query.limit ?? 20,
    ...(query.cursor !== undefined && { cursor: query.cursor }),
  });
  return {
    status: 200,
    body: {
      items: page.items.map((job) => ({ ...job, location: `/bulk-correction-jobs/${job.jobId}` })),
      ...(page.nextCursor && { nextCursor: page.nextCursor }),
    },
  };
}

async function getJob(request: RouteRequest): Promise<RouteResult> {
  return { status: 200, body: await request.ctx.correctionJobs.get(jobId(request)) };
}

async function listItems(request: RouteRequest): Promise<RouteResult> {
  const id = jobId(request);
  const query = parseQuery(request.event, ListCorrectionJobsQuerySchema);
  const page = await request.ctx.correctionJobs.items(id, {
    limit: query.limit ?? 50,
    ...(query.cursor !== undefined && { cursor: query.cursor }),
  });
  return {
    status: 200,
    body: { items: page.items.map(presentItem), ...(page.nextCursor && { nextCursor: page.nextCursor }) },
  };
}

async function downloadResults(request: RouteRequest): Promise<RouteResult> {
  const id = jobId(request);
  const items = await request.ctx.correctionJobs.allItems(id);
  return {
    status: 200,
    body: undefined,
    text: resultsCsv(items),
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="correction-job-${id}.csv"`,
    },
  };
}

async function requeueJob(request: RouteRequest): Promise<RouteResult> {
  return { status: 202, body: await request.ctx.correctionJobs.requeue(jobId(request)) };
}

export const correctionJobRoutes: readonly Route[] = [
  { method: 'GET', path: '/bulk-correction-jobs', handler: listJobs },
  { method: 'GET', path: '/bulk-correction-jobs/{id}', handler: getJob },
  { method: 'GET', path: '/bulk-correction-jobs/{id}/items', handler: listItems },
  { method: 'GET', path: '/bulk-correction-jobs/{id}/results.csv', handler: downloadResults },
  { method: 'POST', path: '/bulk-correction-jobs/{id}/requeue', handler: requeueJob },
];
