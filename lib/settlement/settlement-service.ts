import type { PayoutStatus, Principal } from '../payouts/model.js';
import type { PayoutEngine } from '../payouts/payout-engine.js';
import type { SubmissionQueue } from '../payouts/queue/submission-queue.js';
import type { ProviderClient } from '../provider/client.js';
import type { Settlement } from '../provider/schemas/settlement.js';
import { forEachAtOnce } from '../shared/at-once.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { type Logger, silentLogger } from '../shared/logger.js';
import type { SettlementDecisionStore } from './decision-store.js';
import type {
  SettlementDecision,
  SettlementDeferral,
  SettlementListingState,
  SettlementTrigger,
} from './model.js';
import type { SettlementPolicy } from './policy.js';
import { INLINE_SENDER, type PayOutResult, type PayoutSender, SettlementPayer } from './settlement-payer.js';
import { type PollBudget, type PollReport, pollSettlements } from './settlement-poller.js';

export interface SettlementServiceOptions {
  readonly engine: PayoutEngine;
  readonly provider: Pick<ProviderClient, 'settlements'>;
  readonly store: SettlementDecisionStore;
  readonly policy: SettlementPolicy;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** How many pages of 100 settlements a look-up or a poll walks at most (default 10). */
  readonly maxPages?: number;
}

/** How many payouts `payoutStatuses` reads at once. */
const PAYOUT_READS_AT_ONCE = 10;

/**
 * Instant settlement: pays a settlement out to the merchant's bank account at most once, whichever trigger
 * (event, ops API, poll) comes first or however often. Every trigger builds the same payout request from a
 * fresh provider read and the policy, and the engine's idempotency on (`settlement`, settlement id) makes
 * the racers share one payout.
 *
 * @example
 * const service = new SettlementService({ engine, provider, store, policy });
 * const result = await service.payOut('7f3c…', 'api', { id: 'alice', kind: 'user' });
 */
export class SettlementService {
  readonly #engine: PayoutEngine;
  readonly #provider: Pick<ProviderClient, 'settlements'>;
  readonly #store: SettlementDecisionStore;
  readonly #logger: Logger;
  readonly #maxPages: number;
  readonly #payer: SettlementPayer;
  readonly policy: SettlementPolicy;

  constructor(options: SettlementServiceOptions) {
    this.#engine = options.engine;
    this.#provider = options.provider;
    this.#store = options.store;
    this.policy = options.policy;
    this.#logger = options.logger ?? silentLogger;
    this.#maxPages = options.maxPages ?? 10;
    this.#payer = new SettlementPayer({
      engine: this.#engine,
      provider: this.#provider,
      store: this.#store,
      policy: this.policy,
      clock: options.clock ?? systemClock,
      logger: this.#logger,
      maxPages: this.#maxPages,
    });
  }

  /** Settlements created before this instant are never paid automatically (`BEFORE_CUTOFF`). */
  cutoff(): Promise<string> {
    return this.#payer.cutoff();
  }

  /** The recorded decision, if any. */
  decision(settlementId: string): Promise<SettlementDecision | undefined> {
    return this.#store.get(settlementId);
  }

  /** The settlement's open deferral (outside the allowed hours, no decision yet), if any. */
  deferral(settlementId: string): Promise<SettlementDeferral | undefined> {
    return this.#store.deferral(settlementId);
  }

  /**
   * The status each `paid` decision's payout has now, by payout id: a decision records that the settlement is to
   * be paid, and its payout may still wait for a second person (`pending_approval`), so a reader shows what the
   * payout says rather than the decision alone. One read per payout, a few at once (a page holds at most 100).
   */
  async payoutStatuses(decisions: readonly SettlementDecision[]): Promise<ReadonlyMap<string, PayoutStatus>> {
    const ids = [...new Set(decisions.flatMap((decision) => (decision.payoutId ? [decision.payoutId] : [])))];
    const statuses = new Map<string, PayoutStatus>();
    await forEachAtOnce(ids, PAYOUT_READS_AT_ONCE, async (id) => {
      const payout = await this.#engine.get(id);
      if (payout) statuses.set(id, payout.status);
    });
    return statuses;
  }

  /** Decisions and open deferrals, newest first. */
  list(query: { state?: SettlementListingState; limit: number; cursor?: string }) {
    return this.#store.list(query);
  }

  /**
   * Decides and, when the policy says so, pays one settlement. `known` is a record the caller has just read
   * from the provider (the poll); otherwise the provider is asked: an event's word is never trusted. `sender`
   * says who sends the payout (this call by default). With an inline sender's `sendWindow` (the API), the
   * provider's listing is read within that window too (readWithinWindow): a read cut off records and sends nothing.
   *
   * @throws NotFoundError when the provider does not list the settlement within the look-up bound
   * @throws DeadlineExceededError when the listing's read ran out of the sender's window; nothing is recorded then
   */
  payOut(
    settlementId: string,
    trigger: SettlementTrigger,
    actor: Principal,
    known?: Settlement,
    sender: PayoutSender = INLINE_SENDER,
  ): Promise<PayOutResult> {
    return this.#payer.payOut(settlementId, trigger, actor, known, sender);
  }

  /**
   * One poll: walks SUCCESSFUL settlements, newest first, up to the page bound, and pays every one of a
   * paid-out category that has no decision yet. A failure on one settlement never stops the others. With a
   * `budget` it starts no page and no settlement after `stopStartingAt` (the next poll finds the undecided ones
   * again) and submits no payout inline after `submitInlineUntil` (the sweeper sends it). Given the submission
   * workers' `queue`, it sends none itself: each payout is handed to them at once.
   */
  poll(actor?: Principal, budget?: PollBudget, queue?: SubmissionQueue): Promise<PollReport> {
    const poll = {
      payer: this.#payer,
      provider: this.#provider,
      store: this.#store,
      logger: this.#logger,
      maxPages: this.#maxPages,
    };
    return pollSettlements(poll, actor, budget, queue);
  }
}
