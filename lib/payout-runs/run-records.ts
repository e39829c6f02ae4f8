import type { IdempotentCreateOutcome } from '../shared/idempotent-create.js';
import type { CursorPage } from '../shared/paging.js';
import type { PayoutRun, RunRow, RunState } from './model.js';

/** What a move of a run may write besides its state (`PayoutRunRecords.transition`). */
export type RunTransitionChanges = Partial<
  Pick<
    PayoutRun,
    | 'approvedBy'
    | 'approvedAt'
    | 'firstApproval'
    | 'materialised'
    | 'cancelledBy'
    | 'cancelledAt'
    | 'cancelReason'
    | 'rejection'
  >
> & { readonly updatedAt: string };

/**
 * The payout runs' records, as the service, the materialiser and the run ends use them: the port of the table's
 * store (run-store.ts) and of the in-memory one the service's unit tests use (store/in-memory-run-store.ts).
 */
export interface PayoutRunRecords {
  /**
   * Stores a run with its rows and its idempotency key, unless another run holds the key (then `created: false`
   * and that run's id). With `claimFile`, only if no other run of the same rows claimed the file.
   *
   * @throws FileClaimedError when `claimFile` and another run of the same rows holds the claim
   */
  create(
    run: PayoutRun,
    rows: readonly RunRow[],
    idempotencyKey: string,
    requestFingerprint: string,
    options?: { readonly claimFile?: boolean },
  ): Promise<IdempotentCreateOutcome>;
  /** The run holding an idempotency key, with the fingerprint of the request that created it. */
  keyedRun(
    idempotencyKey: string,
  ): Promise<{ readonly run: PayoutRun; readonly requestFingerprint?: string } | undefined>;
  /** The ids of the runs stored with these rows (the same payments), oldest first. */
  runsWithContent(contentFingerprint: string): Promise<string[]>;
  get(runId: string): Promise<PayoutRun | undefined>;
  /** Runs, newest first, of one state or all. @throws InvalidCursorError for a cursor this listing did not issue */
  list(query: { limit: number; cursor?: string; state?: RunState }): Promise<CursorPage<PayoutRun>>;
  /** One page of the run's rows in row order, from `fromIndex` when given. @throws InvalidCursorError */
  rows(
    runId: string,
    query: { limit: number; cursor?: string; fromIndex?: number },
  ): Promise<CursorPage<RunRow>>;
  /** Every row of the run, in row order. */
  allRows(runId: string): Promise<RunRow[]>;
  /** Records what a row became; idempotent. */
  recordRow(
    row: Pick<RunRow, 'runId' | 'index'>,
    outcome: { payoutId: string } | { failure: { code: string; message: string } },
  ): Promise<void>;
  /**
   * Moves the run from its state as read to `to` with `changes`, only if its state and materialisation mark are
   * still as read (and, with a first approval, none is recorded yet). False when it was no longer as read.
   */
  transition(
    run: Pick<PayoutRun, 'runId' | 'state' | 'materialised' | 'createdAt'>,
    to: RunState,
    changes: RunTransitionChanges,
  ): Promise<boolean>;
  /** Runs whose rows are still to become payouts, oldest first. */
  dueForMaterialise(limit: number): Promise<string[]>;
}
