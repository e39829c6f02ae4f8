import type { Approval } from '../controls/index.js';
import type { CapChange } from '../payouts/index.js';
import type { CursorPage } from '../shared/paging.js';
import type { BulkItemState, CorrectionAudit, HeldCancellation, PendingCorrection } from './model.js';

/** The claim of a single correction (PATCH) of an item while it is sent: one at a time per item. */
export interface SingleClaim {
  readonly claimId: string;
  readonly at: string;
  readonly leaseUntil: string;
}

/**
 * The store of bulk payout items as corrected here, the port the correction service depends on: each item's latest
 * state (replaced only at the version it was read), its held corrections (each status change conditional on the
 * status it was read in), the claim of a single correction, and the audit of every correction. A claim commits with
 * its reservation on the daily cap, all or nothing. In the table: `DynamoDbBulkItemStore`
 * (store/dynamodb-bulk-item-store.ts); in memory, for unit tests: `InMemoryBulkItemStore`
 * (store/in-memory-bulk-item-store.ts).
 */
export interface BulkItemStore {
  get(id: string): Promise<BulkItemState | undefined>;
  /**
   * The items corrected here, newest change first, optionally only those the provider holds as (in)valid.
   *
   * @throws InvalidCursorError when the cursor is not one this listing issued
   */
  list(query: { isValid?: boolean; limit: number; cursor?: string }): Promise<CursorPage<BulkItemState>>;
  /** The item's corrections, oldest first. */
  audit(id: string): Promise<CorrectionAudit[]>;
  /**
   * Records a correction that waits for a second person; it never overwrites. A job row's correction has its id
   * fixed up front, so a redelivered row finds it already recorded (false) instead of holding it twice.
   */
  putPending(correction: PendingCorrection): Promise<boolean>;
  getPending(id: string, correctionId: string): Promise<PendingCorrection | undefined>;
  /** Held corrections across items, newest first, optionally of one status (`pending_approval`: the queue). */
  listCorrections(query: {
    status?: PendingCorrection['status'];
    limit: number;
    cursor?: string;
  }): Promise<CursorPage<PendingCorrection>>;
  /** The item's corrections that were held for approval, oldest first (decided ones too, with their outcome). */
  pending(id: string): Promise<PendingCorrection[]>;
  /**
   * Moves a held correction from `pending_approval` to `approved`, with the reservation of the amount at stake on
   * the daily cap (`cap`): only the request whose write commits sends it.
   *
   * @throws InvalidTransitionError when it is no longer waiting
   * @throws DailyCapExceededError when the reservation would pass the cap: nothing written, it still waits
   */
  claimApproval(
    correction: PendingCorrection,
    approvedBy: PendingCorrection['requestedBy'],
    at: string,
    cap?: CapChange,
  ): Promise<void>;
  /**
   * Records the first of two approvals of a held correction: it stays `pending_approval`. Recorded once.
   *
   * @throws ConcurrentModificationError when it is no longer waiting, or a first approval was recorded meanwhile
   */
  recordFirstApproval(correction: PendingCorrection, firstApproval: Approval): Promise<PendingCorrection>;
  /**
   * Gives back an approval claimed at `approvedAt` whose correction was never sent: `approved` ->
   * `pending_approval`, the approver forgotten, only while no outcome is recorded; the claim's reservation on the
   * daily cap (`cap`) is given back with it.
   *
   * @throws ConcurrentModificationError when it is no longer that claim (nothing given back)
   */
  releaseApproval(correction: PendingCorrection, approvedAt: string, cap?: CapChange): Promise<void>;
  /**
   * Takes the claim of a single correction of an item, with its reservation on the daily cap (`cap`). A claim
   * ended or older than its lease is taken over. False when another request holds it.
   *
   * @throws DailyCapExceededError when the reservation would pass the cap: nothing written
   */
  claimSingle(id: string, claim: SingleClaim, cap: CapChange | undefined): Promise<boolean>;
  /**
   * Ends a single correction's claim (`claimId`, only if still ours), giving its reservation on the daily cap back
   * with it when `cap` is named: only for a claim that sent nothing.
   */
  releaseSingle(id: string, claimId: string, at: string, cap?: CapChange): Promise<void>;
  /** Gives a reservation on the daily cap back: only for a correction the provider refused or reports invalid. */
  releaseCap(cap: CapChange): Promise<void>;
  /**
   * Withdraws a held correction: `pending_approval` -> `cancelled`, with who, when and why.
   *
   * @throws InvalidTransitionError when it is no longer waiting (approved, or cancelled already)
   */
  cancelHeld(correction: PendingCorrection, cancellation: HeldCancellation): Promise<PendingCorrection>;
  /** Records what came of an approved correction. */
  recordOutcome(id: string, correctionId: string, outcome: string): Promise<void>;
  /** Appends one audit entry; written whatever else fails, since the provider may have acted. */
  appendAudit(audit: CorrectionAudit): Promise<void>;
  /**
   * Replaces the state only if it is still at `expectedVersion` (0: none yet).
   *
   * @throws ConcurrentModificationError when it is not
   */
  putState(state: BulkItemState, expectedVersion: number): Promise<void>;
}
