import type { Principal } from '../controls/index.js';

/**
 * Where one row of a correction job stands. `queued` rows wait for a worker; `sending` is the claim a worker
 * takes before the provider call; `pending_approval` waits for a second person; every other state is final.
 */
export const JobItemStatus = {
  Queued: 'queued',
  Sending: 'sending',
  PendingApproval: 'pending_approval',
  Corrected: 'corrected',
  StillInvalid: 'still_invalid',
  Invalid: 'invalid',
  ProviderRejected: 'provider_rejected',
  NotSent: 'not_sent',
  Unknown: 'unknown',
  Paused: 'paused',
  /** The day's daily cap of the main wallet would be exceeded when its turn came; nothing sent. */
  CapExceeded: 'cap_exceeded',
  /** Its held correction was withdrawn by a person before anyone approved it; nothing sent. */
  Cancelled: 'cancelled',
} as const;
export type JobItemStatus = (typeof JobItemStatus)[keyof typeof JobItemStatus];

/** The states a row leaves no more: its result is known (or known to be unknown). */
export const FINAL_ITEM_STATUSES: readonly JobItemStatus[] = [
  JobItemStatus.Corrected,
  JobItemStatus.StillInvalid,
  JobItemStatus.Invalid,
  JobItemStatus.ProviderRejected,
  JobItemStatus.NotSent,
  JobItemStatus.Unknown,
  JobItemStatus.Paused,
  JobItemStatus.CapExceeded,
  JobItemStatus.Cancelled,
];

/** A job as a whole: derived from its rows, never stored, so no row's write contends on the job item. */
export const JobStatus = {
  /** Some rows are queued or being sent. */
  Running: 'running',
  /** Every row is done but some wait for a second person. */
  WaitingForApproval: 'waiting_for_approval',
  /** Every row has its result. */
  Completed: 'completed',
} as const;
export type JobStatus = (typeof JobStatus)[keyof typeof JobStatus];

/** What came of one row, as the API shows it and the results CSV lists it. */
export interface JobItemResult {
  /** The provider's verdict after the correction (`corrected`, `still_invalid`). */
  readonly isValid?: boolean;
  readonly reason?: string | null;
  readonly failure?: { readonly code: string; readonly message: string };
  readonly issues?: readonly { readonly path: string; readonly message: string }[];
  /** Why a second person must approve it (`pending_approval`). */
  readonly approvalReason?: string;
}

/** One row of a job: the correction as validated when the job was accepted, and where it stands. */
export interface JobItem {
  readonly jobId: string;
  /** The row's position in the batch, from 0. */
  readonly index: number;
  readonly bulkPayoutItemId: string;
  /** The fields to set (amount in kobo), validated when the job was accepted. */
  readonly fields: Readonly<Record<string, string | number>>;
  /** The id the row's correction takes if it is held for approval: fixed up front, so a redelivery holds it once. */
  readonly correctionId: string;
  readonly status: JobItemStatus;
  readonly result?: JobItemResult;
  readonly updatedAt: string;
}

/** A correction job: a batch accepted at once and worked through by the queue workers. */
export interface CorrectionJob {
  readonly jobId: string;
  readonly total: number;
  readonly source: 'json' | 'csv';
  readonly requestedBy: Principal;
  readonly createdAt: string;
}

/** A job with its rows counted by state. */
export interface JobView extends CorrectionJob {
  readonly status: JobStatus;
  readonly counts: Readonly<Partial<Record<JobItemStatus, number>>>;
  /** Rows with a final result, of `total`. */
  readonly progress: { readonly done: number; readonly total: number; readonly percent: number };
}

/** The job's status from its rows' counts. */
export function jobStatusOf(counts: Partial<Record<JobItemStatus, number>>): JobStatus {
  if ((counts.queued ?? 0) + (counts.sending ?? 0) > 0) return JobStatus.Running;
  if ((counts.pending_approval ?? 0) > 0) return JobStatus.WaitingForApproval;
  return JobStatus.Completed;
}
