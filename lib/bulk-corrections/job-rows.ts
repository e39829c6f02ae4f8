import {
  type CorrectionJob,
  FINAL_ITEM_STATUSES,
  type JobItem,
  type JobItemResult,
  type JobItemStatus,
  type JobView,
  jobStatusOf,
} from './job-model.js';
import type { CorrectionWork } from './job-queue.js';
import type { CorrectionResult } from './model.js';

/** The job with its rows counted by state and its progress. */
export function jobViewOf(job: CorrectionJob, items: readonly JobItem[]): JobView {
  const counts: Partial<Record<JobItemStatus, number>> = {};
  for (const item of items) counts[item.status] = (counts[item.status] ?? 0) + 1;
  const done = items.filter((item) => FINAL_ITEM_STATUSES.includes(item.status)).length;
  return {
    ...job,
    status: jobStatusOf(counts),
    counts,
    progress: {
      done,
      total: job.total,
      percent: job.total === 0 ? 100 : Math.floor((done * 100) / job.total),
    },
  };
}

/** A correction's result as a row's final (or held) state. */
export function rowOutcomeOf(result: CorrectionResult): { status: JobItemStatus; result: JobItemResult } {
  switch (result.outcome) {
    case 'corrected':
    case 'still_invalid':
      return {
        status: result.outcome,
        result: { isValid: result.item.record.isValid, reason: result.item.record.reason },
      };
    case 'pending_approval':
      return { status: result.outcome, result: { approvalReason: result.correction.reason } };
    case 'invalid':
      return { status: result.outcome, result: { issues: result.issues } };
    case 'paused':
    case 'cap_exceeded':
      return { status: result.outcome, result: { failure: result.failure } };
    default:
      return {
        status: result.outcome,
        result: { failure: { code: result.failure.code, message: result.failure.message } },
      };
  }
}

/** The job's work as queue messages: the rows of each bulk payout item, in row order. */
export function workOf(jobId: string, items: readonly JobItem[]): CorrectionWork[] {
  const byItem = new Map<string, number[]>();
  for (const item of items)
    byItem.set(item.bulkPayoutItemId, [...(byItem.get(item.bulkPayoutItemId) ?? []), item.index]);
  return [...byItem].map(([bulkPayoutItemId, indexes]) => ({
    kind: 'bulk-correction',
    jobId,
    bulkPayoutItemId,
    indexes,
  }));
}
