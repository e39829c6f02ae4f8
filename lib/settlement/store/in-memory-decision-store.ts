import { newestFirst, pageOf } from '../../shared/in-memory-pages.js';
import type { CursorPage } from '../../shared/paging.js';
import type { SettlementDecisionStore } from '../decision-store.js';
import type {
  SettlementDecision,
  SettlementDeferral,
  SettlementListing,
  SettlementListingState,
} from '../model.js';

/**
 * Settlement decisions in memory, with the table store's rules (`DynamoDbSettlementDecisionStore`): the first
 * decision of a settlement holds and closes its deferral; a deferral is kept only while no decision exists; the
 * first `enabledSince` holds. For unit tests of the settlement service's paths that record alone (deferrals, skips,
 * replays, the poll); the table's own suite tests the store (test/settlement/decision-store.contract.test.ts).
 *
 * A decision that pays commits in the payout's creating transaction (`recording`, a CreationCompanion of the table's
 * items), which memory cannot join: `recording` throws, and the paid path is tested against DynamoDB Local
 * (test/settlement/settlement-service.test.ts).
 */
export class InMemorySettlementDecisionStore implements SettlementDecisionStore {
  readonly #decisions = new Map<string, SettlementDecision>();
  readonly #deferrals = new Map<string, SettlementDeferral>();
  #enabledSince: string | undefined;

  async afterRequestSent(): Promise<void> {}

  async get(settlementId: string): Promise<SettlementDecision | undefined> {
    const decision = this.#decisions.get(settlementId);
    return decision && structuredClone(decision);
  }

  async enabledSince(now: Date): Promise<string> {
    this.#enabledSince ??= now.toISOString();
    return this.#enabledSince;
  }

  recording(decision: SettlementDecision): never {
    throw new Error(
      `the in-memory decision of settlement ${decision.settlementId} cannot commit in a payout's creation`,
    );
  }

  async record(decision: SettlementDecision): Promise<SettlementDecision> {
    const existing = this.#decisions.get(decision.settlementId);
    if (existing) return structuredClone(existing);
    this.#decisions.set(decision.settlementId, structuredClone(decision));
    this.#deferrals.delete(decision.settlementId);
    return decision;
  }

  async recordDeferral(deferral: SettlementDeferral): Promise<SettlementDecision | undefined> {
    const decided = this.#decisions.get(deferral.settlementId);
    if (decided) return structuredClone(decided);
    this.#deferrals.set(deferral.settlementId, structuredClone(deferral));
    return undefined;
  }

  async deferral(settlementId: string): Promise<SettlementDeferral | undefined> {
    const deferral = this.#deferrals.get(settlementId);
    return deferral && structuredClone(deferral);
  }

  async list(query: {
    state?: SettlementListingState;
    limit: number;
    cursor?: string;
  }): Promise<CursorPage<SettlementListing>> {
    const listed: { at: string; id: string; state: string; item: SettlementListing }[] = [
      ...[...this.#decisions.values()].map((decision) => ({
        at: decision.decidedAt,
        id: decision.settlementId,
        state: decision.decision,
        item: { kind: 'decision' as const, ...decision },
      })),
      ...[...this.#deferrals.values()].map((deferral) => ({
        at: deferral.deferredAt,
        id: deferral.settlementId,
        state: 'deferred',
        item: { kind: 'deferral' as const, ...deferral },
      })),
    ];
    const matching = listed.filter((entry) => query.state === undefined || entry.state === query.state);
    const page = pageOf(
      newestFirst(
        matching,
        (entry) => entry.at,
        (entry) => entry.id,
      ),
      query,
    );
    return { ...page, items: page.items.map((entry) => structuredClone(entry.item)) };
  }
}
