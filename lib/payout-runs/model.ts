import type { Approval, Principal, Rejection } from '../controls/index.js';
import type { Beneficiary } from '../payouts/index.js';
import type { RowEnd } from './row-ends.js';

/**
 * A payout run: many bank transfers from one file, approved once as a whole, each row paid once as its own payout.
 * Amounts are integer kobo; timestamps ISO 8601 UTC.
 */

/** The states a run is stored in (docs/payout-runs.md, "States"). */
export const RunState = {
  /** Its total or a row reaches the approval threshold: waits for a second person. Nothing created yet. */
  PendingApproval: 'pending_approval',
  /** Approved (or needing no approval): the sweep turns its rows into payouts, a batch per tick. */
  Materialising: 'materialising',
  /** Every row is a payout (or failed to become one): the engine sends them. */
  Materialised: 'materialised',
  /** Cancelled by a person: rows not yet claimed were cancelled, rows already sent stand. */
  Cancelled: 'cancelled',
  /** Every row ended, each `succeeded` (`ends`): recorded once, by run-ends.ts. */
  Completed: 'completed',
  /** Every row ended, some `failed`, `missed`, `refused` or waiting in `needs_review` (`ends`). */
  NeedsAttention: 'needs_attention',
} as const;
export type RunState = (typeof RunState)[keyof typeof RunState];

/** A run's status as shown: its state, with `materialised` told apart by its payouts' progress. */
export type RunStatus = Exclude<RunState, typeof RunState.Materialised> | 'sending';

export type { RowEnd } from './row-ends.js';

/** The rows of a run that have ended, counted once each (lib/payout-runs/run-ends.ts). */
export interface RunEnds {
  readonly rows: number;
  readonly attention: number;
  readonly sentKobo: number;
  readonly failedKobo: number;
  readonly byEnd: Partial<Record<RowEnd, number>>;
}

/** One of the largest rows, shown to the approver. */
export interface LargestRow {
  readonly row: number;
  readonly reference: string;
  readonly amountKobo: number;
}

export interface PayoutRun {
  readonly runId: string;
  readonly state: RunState;
  /** Rows in the file. */
  readonly count: number;
  readonly totalKobo: number;
  readonly largestRows: readonly LargestRow[];
  /** SHA-256 of the uploaded body as received (hex): what the approver checks against the file they were sent. */
  readonly fileSha256: string;
  /** SHA-256 of the rows as validated: the same payments in CSV or JSON have the same one (duplicate runs). */
  readonly contentFingerprint: string;
  readonly source: 'csv' | 'json';
  readonly requestedBy: Principal;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Why a second person must approve, when one must. */
  readonly approvalReason?: string;
  readonly approvedBy?: Principal;
  readonly approvedAt?: string;
  /** The first of two approvals (a total at or above the second-approval threshold): it waits for a second. */
  readonly firstApproval?: Approval;
  /** Rows below this index are payouts (or failed to become one): where materialisation resumes. */
  readonly materialised: number;
  /** Duplicate lines and earlier runs of the same file the requester acknowledged. */
  readonly acknowledged?: { readonly duplicateLines: number; readonly duplicateRunIds: readonly string[] };
  readonly cancelledBy?: Principal;
  readonly cancelledAt?: string;
  readonly cancelReason?: string;
  /** A second person's refusal while it waited for approval: the run is `cancelled`, none of its rows sent. */
  readonly rejection?: Rejection;
  /** The rows ended so far (absent before the first). */
  readonly ends?: RunEnds;
  /** When every row had ended: recorded once, and then the run's end event is published. */
  readonly endedAt?: string;
}

/** One row of a run, as validated, and what became of it. */
export interface RunRow {
  readonly runId: string;
  /** 0-based position in the file; `row` is index + 1 wherever people read it. */
  readonly index: number;
  readonly reference: string;
  readonly amountKobo: number;
  readonly beneficiary: Beneficiary;
  readonly narration: string;
  readonly scheduleAt?: string;
  /** The payout the row became (idempotency key `run:<runId>:<index>`). */
  readonly payoutId?: string;
  /** The row could not become a payout (the limits in force refused it at materialisation). */
  readonly failure?: { readonly code: string; readonly message: string };
}

/** The idempotency key of a row's payout: one per run and row, so a crash and a re-run create it once. */
export const rowPayoutKey = (runId: string, index: number) => `run:${runId}:${index}`;

/** A warning the requester must acknowledge before the run is accepted (`acknowledgeDuplicates`). */
export type RunWarning =
  | {
      readonly kind: 'duplicate_line';
      /** The rows (1-based) paying the same account the same amount. */
      readonly rows: readonly number[];
      readonly message: string;
    }
  | { readonly kind: 'duplicate_run'; readonly runId: string; readonly message: string };
