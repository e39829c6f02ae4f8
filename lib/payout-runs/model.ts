import type { Beneficiary, Principal } from '../payouts/model.js';

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
} as const;
export type RunState = (typeof RunState)[keyof typeof RunState];

/** A run's status as shown: its state, with `materialised` told apart by its payouts' progress. */
export type RunStatus =
  | typeof RunState.PendingApproval
  | typeof RunState.Materialising
  | typeof RunState.Cancelled
  | 'sending'
  | 'completed'
  | 'needs_attention';

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
  /** Rows below this index are payouts (or failed to become one): where materialisation resumes. */
  readonly materialised: number;
  /** Duplicate lines and earlier runs of the same file the requester acknowledged. */
  readonly acknowledged?: { readonly duplicateLines: number; readonly duplicateRunIds: readonly string[] };
  readonly cancelledBy?: Principal;
  readonly cancelledAt?: string;
  readonly cancelReason?: string;
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
