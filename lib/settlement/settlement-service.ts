import type { Principal } from '../controls/index.js';
import { formatNaira } from '../money.js';
import {
  type CreatePayoutCommand,
  type CreatePayoutRequest,
  type CreatePayoutResult,
  CreationCompanionRefusedError,
  createAndSubmit,
  handOverPending,
  type Payout,
  type PayoutEngine,
  type PayoutStatus,
  type SubmissionQueue,
  submitIfPending,
} from '../payouts/index.js';
import type { ProviderClient, Settlement } from '../provider/index.js';
import { forEachAtOnce } from '../shared/at-once.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { IdempotencyConflictError, ValidationError } from '../shared/errors.js';
import { type Logger, silentLogger } from '../shared/logger.js';
import type { SettlementDecisionStore } from './decision-store.js';
import type {
  SettlementDecision,
  SettlementDeferral,
  SettlementListingState,
  SettlementTrigger,
} from './model.js';
import { INLINE_SENDER, type PayOutResult, type PayoutSender } from './payout-sender.js';
import { decideSettlement, type SettlementPolicy, SkipCode } from './policy.js';
import { findSettlement, snapshotOf } from './settlement-lookup.js';
import { type PollBudget, type PollReport, pollSettlements } from './settlement-poller.js';

/** Settlement payouts are created by the engine with this origin; the settlement id is the idempotency key. */
export const SETTLEMENT_ORIGIN = 'settlement';
const NARRATION_ID_LENGTH = 48;

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
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #maxPages: number;
  #enabledSince: Promise<string> | undefined;
  readonly policy: SettlementPolicy;

  constructor(options: SettlementServiceOptions) {
    this.#engine = options.engine;
    this.#provider = options.provider;
    this.#store = options.store;
    this.policy = options.policy;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
    this.#maxPages = options.maxPages ?? 10;
  }

  /** Settlements created before this instant are never paid automatically (`BEFORE_CUTOFF`). */
  cutoff(): Promise<string> {
    return this.#startCutoff().cutoff;
  }

  /** The cutoff, and whether this call started its read (none configured, none read in this container yet). */
  #startCutoff(): { cutoff: Promise<string>; reading: boolean } {
    if (this.policy.since) return { cutoff: Promise.resolve(this.policy.since), reading: false };
    const reading = this.#enabledSince === undefined;
    this.#enabledSince ??= this.#store.enabledSince(this.#clock.now()).catch((error: unknown) => {
      this.#enabledSince = undefined;
      throw error;
    });
    return { cutoff: this.#enabledSince, reading };
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
  async payOut(
    settlementId: string,
    trigger: SettlementTrigger,
    actor: Principal,
    known?: Settlement,
    sender: PayoutSender = INLINE_SENDER,
  ): Promise<PayOutResult> {
    // The provider's record and the cutoff are read together (the cutoff once per container when no
    // settlement.since is set; its read leaves first, below). The decision is not read first: a first
    // trigger, the usual one, finds none, and a repeated one is met by the writes below, each first-writer-wins
    // (the payout's idempotency key, the decision's record, the deferral's check), which answer the decision that
    // holds. It is read ahead only for a settlement past the provider's newest, alongside the walk (#find).
    const { cutoff, reading } = this.#startCutoff();
    // Settles either way: also what keeps a failed read handled until `await cutoff` below.
    const answered = cutoff.then(
      () => undefined,
      () => undefined,
    );
    // On a cold start the cutoff's read is its client's first request (about 10 ms of CPU); the listing, a read,
    // goes over Node's own HTTP client, loaded already (lib/provider/split-transport.ts), and costs little. The
    // listing is asked for once the read has been handed to the HTTP handler (or has failed before it), so that
    // neither delays the other's request; asking for the listing first measured no better (docs/cold-start.md).
    if (reading && known?.id !== settlementId) await Promise.race([this.#store.afterRequestSent(), answered]);
    const found =
      known?.id === settlementId
        ? { settlement: known }
        : await findSettlement(
            this.#provider,
            this.#store,
            this.#maxPages,
            settlementId,
            sender.by === 'inline' ? sender.sendWindow : undefined,
          );
    if ('decided' in found) return this.#replay(found.decided, sender);
    const { settlement } = found;
    const now = this.#clock.now();
    const verdict = decideSettlement(settlement, this.policy, now, await cutoff);
    const base = {
      settlementId,
      settlement: snapshotOf(settlement),
      trigger,
      decidedBy: actor,
      decidedAt: now.toISOString(),
    };
    if (verdict.kind === 'defer') {
      const decided = await this.#store.recordDeferral({
        settlementId,
        code: verdict.code,
        reason: verdict.reason,
        settlement: base.settlement,
        trigger,
        deferredBy: actor,
        deferredAt: base.decidedAt,
      });
      // Decided by an earlier trigger: that decision stands, and no deferral was recorded.
      if (decided) return this.#replay(decided, sender);
      this.#logger.info('settlement payout deferred', { settlementId, trigger, reason: verdict.reason });
      return { outcome: 'deferred', reason: verdict.reason };
    }
    if (verdict.kind === 'skip')
      return this.#skip({ ...base, code: verdict.code, reason: verdict.reason }, sender);

    const decisionFor = (payout: Payout): SettlementDecision => ({
      ...base,
      decision: 'paid',
      reason: `paying ${formatNaira(payout.amountKobo)} to ${this.policy.destination.accountNumber}`,
      payoutId: payout.id,
      amountKobo: payout.amountKobo,
    });
    const command: CreatePayoutCommand = {
      request: this.#payoutRequest(settlementId, verdict.amountKobo),
      idempotencyKey: settlementId,
      origin: SETTLEMENT_ORIGIN,
      actor,
      sourceRef: settlementId,
      // The decision commits in the payout's creating transaction: a settlement is paid exactly when a decision
      // names its payout, and no trigger waits on a second write for it.
      companion: (payout) => this.#store.recording(decisionFor(payout)),
    };
    // A replay of the key wrote nothing: the decision an earlier trigger committed is read back (recording it now
    // if that payout was created before decisions rode along with it).
    const decisionOf = (created: CreatePayoutResult): SettlementDecision | Promise<SettlementDecision> =>
      created.replayed ? this.#store.record(decisionFor(created.payout)) : decisionFor(created.payout);
    try {
      if (sender.by !== 'inline') {
        // Not sent here, the payout is created pending, not held back for an inline send that never comes: it is
        // handed to the submission workers, or the sweeper sends it at its next tick.
        const created = await this.#engine.create({ ...command, submitsInline: false });
        const [decision, payout] = await Promise.all([
          decisionOf(created),
          this.#send(created.payout, sender),
        ]);
        return { outcome: 'paid', decision, payout };
      }
      // Created already claimed in one transaction with its decision and sent at once (createAndSubmit): the
      // payout exists once per settlement (the engine's idempotency on the settlement id) and the claim sends it
      // at most once. A replay is sent if still pending.
      const sent = await createAndSubmit(this.#engine.ctx, command, {
        submitReplayed: true,
        ...(sender.sendWindow && { sendWindow: sender.sendWindow }),
      });
      return { outcome: 'paid', decision: await decisionOf(sent), payout: sent.payout };
    } catch (error) {
      if (error instanceof ValidationError) {
        return this.#skip({ ...base, code: SkipCode.EngineRejected, reason: error.message }, sender);
      }
      if (error instanceof CreationCompanionRefusedError) {
        // Another trigger decided the settlement meanwhile without paying it (the key was free): its decision
        // stands, and nothing was written here.
        const recorded = await this.#store.get(settlementId);
        if (!recorded) throw error;
        return this.#replay(recorded, sender);
      }
      if (!(error instanceof IdempotencyConflictError)) throw error;
      // The policy changed between two triggers: the first payout stands, this request is not sent.
      const existing = await this.#engine.get(error.existingId);
      if (!existing) throw error;
      const recording = this.#store.record(decisionFor(existing));
      const [decision, payout] = await Promise.all([recording, this.#send(existing, sender)]);
      return { outcome: 'paid', decision, payout };
    }
  }

  /**
   * One poll: walks SUCCESSFUL settlements, newest first, up to the page bound, and pays every one of a
   * paid-out category that has no decision yet. A failure on one settlement never stops the others. With a
   * `budget` it starts no page and no settlement after `stopStartingAt` (the next poll finds the undecided ones
   * again) and submits no payout inline after `submitInlineUntil` (the sweeper sends it). Given the submission
   * workers' `queue`, it sends none itself: each payout is handed to them at once.
   */
  poll(actor?: Principal, budget?: PollBudget, queue?: SubmissionQueue): Promise<PollReport> {
    return pollSettlements(this, this.#provider, this.#logger, this.#maxPages, actor, budget, queue);
  }

  async #replay(recorded: SettlementDecision, sender: PayoutSender): Promise<PayOutResult> {
    if (recorded.decision === 'skipped') return { outcome: 'skipped', decision: recorded };
    if (sender.by === 'sweeper') return { outcome: 'paid', decision: recorded };
    const payout = recorded.payoutId ? await this.#engine.get(recorded.payoutId) : undefined;
    // A crash after recording may have left the payout pending: sending it again is a no-op otherwise.
    return {
      outcome: 'paid',
      decision: recorded,
      ...(payout && { payout: await this.#send(payout, sender) }),
    };
  }

  /** Records the skip, unless an earlier trigger decided the settlement: then that decision is replayed. */
  async #skip(decision: Omit<SettlementDecision, 'decision'>, sender: PayoutSender): Promise<PayOutResult> {
    const held = await this.#store.record({ ...decision, decision: 'skipped' });
    if (held.decision === 'paid') return this.#replay(held, sender);
    this.#logger.info('settlement not paid out', {
      settlementId: held.settlementId,
      code: held.code,
      reason: held.reason,
    });
    return { outcome: 'skipped', decision: held };
  }

  /**
   * Has a pending payout sent by `sender`: submitted here, handed to the workers, or left as it is for the
   * sweeper. A failure here is left to the sweeper, never to the caller.
   */
  async #send(payout: Payout, sender: PayoutSender): Promise<Payout> {
    switch (sender.by) {
      case 'inline':
        // With a send window (the API) a payout not created already claimed here is the sweeper's, as for
        // POST /payouts: nothing starts that the request's deadline could cut off mid-call.
        return (
          await submitIfPending(
            this.#engine.ctx,
            { payout, replayed: false },
            sender.sendWindow ? { sendWindow: sender.sendWindow } : {},
          )
        ).payout;
      case 'queue':
        await handOverPending(this.#engine.ctx, payout, sender.queue);
        return payout;
      case 'sweeper':
        return payout;
    }
  }

  #payoutRequest(settlementId: string, amountKobo: number): CreatePayoutRequest {
    return {
      type: 'bank_transfer',
      amount: amountKobo,
      currency: 'NGN',
      narration: `Settlement ${settlementId.slice(0, NARRATION_ID_LENGTH)}`,
      beneficiary: this.policy.destination,
      metadata: { isInstantSettlement: true, isMerchantSettlement: true, settlementId },
    };
  }
}
