import type { Approval } from '../../controls/index.js';
import { type CapChange, InMemoryControls } from '../../payouts/index.js';
import { ConcurrentModificationError, InvalidTransitionError } from '../../shared/errors.js';
import { newestFirst, pageOf } from '../../shared/in-memory-pages.js';
import type { CursorPage } from '../../shared/paging.js';
import type { BulkItemStore, SingleClaim } from '../bulk-item-store.js';
import {
  type BulkItemState,
  CORRECTION_OUTCOMES,
  type CorrectionAudit,
  type HeldCancellation,
  type PendingCorrection,
} from '../model.js';

/**
 * Bulk payout items in memory, with the table store's rules (`DynamoDbBulkItemStore`): the state is replaced only at
 * the version it was read (0: none yet); a held correction is written once and each status change is conditional on
 * the status it was read in, as the table's condition expressions are (the same errors, or false, when they fail);
 * a single correction's claim is taken only when free, ended or past its lease; a claim's reservation on the daily
 * cap (`controls`) commits with it or not at all, and a claim given back returns it. For unit tests of the
 * correction service; the table's own suites test the store (test/bulk-corrections/).
 */
export class InMemoryBulkItemStore implements BulkItemStore {
  readonly #states = new Map<string, BulkItemState>();
  readonly #audits: CorrectionAudit[] = [];
  readonly #corrections = new Map<string, PendingCorrection>();
  readonly #claims = new Map<string, SingleClaim & { releasedAt?: string }>();

  constructor(readonly controls: InMemoryControls = new InMemoryControls()) {}

  async get(id: string): Promise<BulkItemState | undefined> {
    const state = this.#states.get(id);
    return state && structuredClone(state);
  }

  async list(query: {
    isValid?: boolean;
    limit: number;
    cursor?: string;
  }): Promise<CursorPage<BulkItemState>> {
    const matching = [...this.#states.values()].filter(
      (state) => query.isValid === undefined || state.record.isValid === query.isValid,
    );
    const ordered = newestFirst(
      matching,
      (state) => state.updatedAt,
      (state) => state.bulkPayoutItemId,
    );
    return structuredClone(pageOf(ordered, query));
  }

  async audit(id: string): Promise<CorrectionAudit[]> {
    const entries = this.#audits.filter((audit) => audit.bulkPayoutItemId === id);
    // Oldest first, as the table's keys sort them (`AUDIT#<at>#…`); entries of one instant in the order written.
    return structuredClone([...entries].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0)));
  }

  async putPending(correction: PendingCorrection): Promise<boolean> {
    const key = correctionKey(correction.bulkPayoutItemId, correction.correctionId);
    if (this.#corrections.has(key)) return false;
    this.#corrections.set(key, structuredClone(correction));
    return true;
  }

  async getPending(id: string, correctionId: string): Promise<PendingCorrection | undefined> {
    const correction = this.#corrections.get(correctionKey(id, correctionId));
    return correction && structuredClone(correction);
  }

  async listCorrections(query: {
    status?: PendingCorrection['status'];
    limit: number;
    cursor?: string;
  }): Promise<CursorPage<PendingCorrection>> {
    const matching = [...this.#corrections.values()].filter(
      (correction) => query.status === undefined || correction.status === query.status,
    );
    const ordered = newestFirst(
      matching,
      (correction) => correction.requestedAt,
      (correction) => correction.correctionId,
    );
    return structuredClone(pageOf(ordered, query));
  }

  async pending(id: string): Promise<PendingCorrection[]> {
    const held = [...this.#corrections.values()].filter((correction) => correction.bulkPayoutItemId === id);
    return structuredClone(held.sort((a, b) => (a.correctionId < b.correctionId ? -1 : 1)));
  }

  async claimApproval(
    correction: PendingCorrection,
    approvedBy: PendingCorrection['requestedBy'],
    at: string,
    cap?: CapChange,
  ): Promise<void> {
    const current = this.#corrections.get(
      correctionKey(correction.bulkPayoutItemId, correction.correctionId),
    );
    if (current?.status !== 'pending_approval') {
      throw new InvalidTransitionError(
        'correction',
        `correction ${correction.correctionId} of bulk payout item ${correction.bulkPayoutItemId} is no longer waiting for approval`,
      );
    }
    if (cap) this.controls.checkCap(cap);
    this.#setCorrection({ ...current, status: 'approved', approvedBy, approvedAt: at });
    if (cap) this.controls.applyCap(cap);
  }

  async recordFirstApproval(
    correction: PendingCorrection,
    firstApproval: Approval,
  ): Promise<PendingCorrection> {
    const current = this.#corrections.get(
      correctionKey(correction.bulkPayoutItemId, correction.correctionId),
    );
    if (current?.status !== 'pending_approval' || current.firstApproval !== undefined) {
      throw new ConcurrentModificationError('correction', correction.correctionId);
    }
    this.#setCorrection({ ...current, firstApproval });
    return { ...correction, firstApproval };
  }

  async releaseApproval(correction: PendingCorrection, approvedAt: string, cap?: CapChange): Promise<void> {
    const current = this.#corrections.get(
      correctionKey(correction.bulkPayoutItemId, correction.correctionId),
    );
    if (
      current?.status !== 'approved' ||
      current.approvedAt !== approvedAt ||
      current.outcome !== undefined
    ) {
      throw new ConcurrentModificationError('correction', correction.correctionId);
    }
    const { approvedBy: _by, approvedAt: _at, ...rest } = current;
    this.#setCorrection({ ...rest, status: 'pending_approval' });
    if (cap) this.#giveBack(cap);
  }

  async claimSingle(id: string, claim: SingleClaim, cap: CapChange | undefined): Promise<boolean> {
    const held = this.#claims.get(id);
    if (held && held.releasedAt === undefined && !(held.leaseUntil < claim.at)) return false;
    if (cap) this.controls.checkCap(cap);
    this.#claims.set(id, { ...claim });
    if (cap) this.controls.applyCap(cap);
    return true;
  }

  async releaseSingle(id: string, claimId: string, at: string, cap?: CapChange): Promise<void> {
    const held = this.#claims.get(id);
    // Not ours any more (or ended already): nothing written, the reservation not given back, as in the table.
    if (held?.claimId !== claimId || held.releasedAt !== undefined) return;
    this.#claims.set(id, { ...held, releasedAt: at });
    if (cap) this.#giveBack(cap);
  }

  async releaseCap(cap: CapChange): Promise<void> {
    this.#giveBack(cap);
  }

  async cancelHeld(
    correction: PendingCorrection,
    cancellation: HeldCancellation,
  ): Promise<PendingCorrection> {
    const current = this.#corrections.get(
      correctionKey(correction.bulkPayoutItemId, correction.correctionId),
    );
    if (current?.status !== 'pending_approval') {
      throw new InvalidTransitionError(
        'correction',
        `correction ${correction.correctionId} of bulk payout item ${correction.bulkPayoutItemId} is no longer waiting for approval; only a correction in pending_approval can be cancelled`,
      );
    }
    const cancelled: PendingCorrection = { ...current, status: 'cancelled', ...cancellation };
    this.#setCorrection(cancelled);
    return structuredClone(cancelled);
  }

  async recordOutcome(id: string, correctionId: string, outcome: string): Promise<void> {
    const current = this.#corrections.get(correctionKey(id, correctionId));
    if (!current) return;
    // The table stores any text and its read refuses one that is no outcome; memory refuses it at once.
    const known = CORRECTION_OUTCOMES.find((candidate) => candidate === outcome);
    if (!known) throw new Error(`${outcome} is not a correction outcome`);
    this.#setCorrection({ ...current, outcome: known });
  }

  async appendAudit(audit: CorrectionAudit): Promise<void> {
    this.#audits.push(structuredClone(audit));
  }

  async putState(state: BulkItemState, expectedVersion: number): Promise<void> {
    const current = this.#states.get(state.bulkPayoutItemId);
    if ((current?.version ?? 0) !== expectedVersion) {
      throw new ConcurrentModificationError('bulk payout item', state.bulkPayoutItemId);
    }
    this.#states.set(state.bulkPayoutItemId, structuredClone(state));
  }

  #setCorrection(correction: PendingCorrection): void {
    this.#corrections.set(
      correctionKey(correction.bulkPayoutItemId, correction.correctionId),
      structuredClone(correction),
    );
  }

  /** A reservation's release: the same amount off the same day's counter. */
  #giveBack(cap: CapChange): void {
    this.controls.applyCap({ capKey: cap.capKey, day: cap.day, deltaKobo: -cap.deltaKobo });
  }
}

const correctionKey = (id: string, correctionId: string) => `${id}#${correctionId}`;
