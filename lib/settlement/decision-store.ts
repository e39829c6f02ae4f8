import type { CreationCompanion } from '../payouts/index.js';
import type { CursorPage } from '../shared/paging.js';
import type {
  SettlementDecision,
  SettlementDeferral,
  SettlementListing,
  SettlementListingState,
} from './model.js';

/**
 * The store of settlement decisions, the port the settlement service depends on: one decision per settlement,
 * written once (the first writer wins) and never changed, and the latest deferral of a settlement not yet decided,
 * closed by the write that records its decision. In the table: `DynamoDbSettlementDecisionStore` (its decision and
 * deferral items, `settlementKeys`: store/dynamodb-decision-store.ts); in memory, for unit tests:
 * `InMemorySettlementDecisionStore` (store/in-memory-decision-store.ts).
 */
export interface SettlementDecisionStore {
  /** Resolves once this store's next request is on its way (a cold start's first read, see `nextRequestSent`). */
  afterRequestSent(): Promise<void>;
  get(settlementId: string): Promise<SettlementDecision | undefined>;
  /**
   * The moment instant settlement was first turned on: recorded by the first caller (`now`), read by every
   * later one, so a redeploy or a new container never moves the cutoff.
   */
  enabledSince(now: Date): Promise<string>;
  /**
   * The writes that record `decision` (once: conditional on no decision yet) and close the settlement's deferral,
   * as the companion of the payout's creation (CreationCompanion), so that a settlement paid and the decision
   * naming its payout commit together.
   */
  recording(decision: SettlementDecision): CreationCompanion;
  /**
   * Records the decision unless one exists, closing the settlement's deferral in the same write; answers the
   * decision that holds (ours or the earlier one).
   */
  record(decision: SettlementDecision): Promise<SettlementDecision>;
  /**
   * Records (or replaces) the settlement's latest deferral, unless it has been decided: then nothing is written,
   * and the decision that holds is answered.
   */
  recordDeferral(deferral: SettlementDeferral): Promise<SettlementDecision | undefined>;
  /** The settlement's open deferral, if it has no decision yet. */
  deferral(settlementId: string): Promise<SettlementDeferral | undefined>;
  /**
   * Decisions and open deferrals, newest first, optionally of one state.
   *
   * @throws InvalidCursorError when the cursor is not one this listing issued
   */
  list(query: {
    state?: SettlementListingState;
    limit: number;
    cursor?: string;
  }): Promise<CursorPage<SettlementListing>>;
}
