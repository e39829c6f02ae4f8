import type { OperatorChange, OperatorProposal } from './model.js';

/** What a disable or enable does to the marker every API function reads (lib/operators/access.ts). */
export type AccessMarker =
  | { readonly sub: string; readonly disabled: true; readonly username: string }
  | { readonly sub: string; readonly disabled: false };

/** What a change of access is recorded with, in the same write: a proposal made or decided, the marker. */
export interface RecordedWith {
  /** A new proposal (its id must be free). */
  readonly proposal?: OperatorProposal;
  /** A proposal moved on from `pending` (it must still be pending). */
  readonly decided?: OperatorProposal;
  readonly marker?: AccessMarker;
}

/**
 * The operators' records, as the service uses them: the port of the table's store (store/dynamodb-operator-store.ts)
 * and of the in-memory one the service's unit tests use (store/in-memory-operator-store.ts).
 */
export interface OperatorRecords {
  /**
   * Records `change` and what comes with it, all or nothing. A change or proposal id taken already, or a decided
   * proposal no longer pending, records nothing and throws ConcurrentModificationError.
   */
  record(change: OperatorChange, also?: RecordedWith): Promise<void>;
  proposal(username: string, id: string): Promise<OperatorProposal | undefined>;
  /** The operator's proposals still waiting for a second admin, oldest first. */
  pendingProposals(username: string): Promise<OperatorProposal[]>;
  /** Every change of the operator's access, oldest first (at most `limit`, default 100, the newest kept). */
  audit(username: string, limit?: number): Promise<OperatorChange[]>;
}
