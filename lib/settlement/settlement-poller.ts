import { type Principal, systemPrincipal } from '../controls/index.js';
import type { SubmissionQueue } from '../payouts/index.js';
import type { ProviderClient, Settlement } from '../provider/index.js';
import { withinDeadline } from '../shared/deadline.js';
import type { Logger } from '../shared/logger.js';
import type { SettlementDecision, SettlementTrigger } from './model.js';
import { INLINE_SENDER, type PayOutResult, type PayoutSender, SWEEPER_SENDER } from './payout-sender.js';
import type { SettlementPolicy } from './policy.js';
import { SETTLEMENT_PAGE_SIZE } from './settlement-lookup.js';

/** One page of the poll's settlement listing (every attempt and retry of it) is abandoned after this long. */
export const POLL_PAGE_READ_DEADLINE_MS = 15_000;

/**
 * When a poll stops starting work (epoch ms, read with `now`): no settlement is decided after `stopStartingAt`,
 * and no payout is submitted inline after `submitInlineUntil` (it stays pending, and the sweeper sends it).
 */
export interface PollBudget {
  readonly stopStartingAt: number;
  readonly submitInlineUntil: number;
  readonly now?: () => number;
}
export interface PollReport {
  readonly examined: number;
  readonly alreadyDecided: number;
  readonly paid: number;
  readonly skipped: number;
  readonly deferred: number;
  readonly failed: number;
  /**
   * Settlements paid whose payout was handed to the submission workers (a poll given their queue; one the queue
   * refused is enqueued by the sweeper's next tick).
   */
  readonly handedOver: number;
  /** Settlements paid whose payout was left to the sweeper, the poll's time being too short to submit it. */
  readonly leftToSweeper: number;
  /** The poll stopped before its deadline; the next poll decides what is left (undecided settlements). */
  readonly stoppedEarly: boolean;
}

/** The service a poll decides each settlement with (SettlementService): its policy, decisions and payOut. */
export interface PolledService {
  readonly policy: Pick<SettlementPolicy, 'categories'>;
  decision(settlementId: string): Promise<SettlementDecision | undefined>;
  payOut(
    settlementId: string,
    trigger: SettlementTrigger,
    actor: Principal,
    known: Settlement,
    sender: PayoutSender,
  ): Promise<PayOutResult>;
}

/**
 * One poll: walks SUCCESSFUL settlements, newest first, up to `maxPages` pages, and pays (`service.payOut`) every one of a
 * paid-out category that has no decision yet. A failure on one settlement never stops the others. With a
 * `budget` it starts no page and no settlement after `stopStartingAt` (the next poll finds the undecided ones
 * again) and submits no payout inline after `submitInlineUntil` (the sweeper sends it). Given the submission
 * workers' `queue`, it sends none itself: each payout is handed to them at once.
 */
export async function pollSettlements(
  service: PolledService,
  provider: Pick<ProviderClient, 'settlements'>,
  logger: Logger,
  maxPages: number,
  actor: Principal = systemPrincipal('settlement-poll'),
  budget?: PollBudget,
  queue?: SubmissionQueue,
): Promise<PollReport> {
  const now = budget?.now ?? Date.now;
  const report = {
    examined: 0,
    alreadyDecided: 0,
    paid: 0,
    skipped: 0,
    deferred: 0,
    failed: 0,
    handedOver: 0,
    leftToSweeper: 0,
  };
  const senderNow = (): PayoutSender => {
    if (queue) return { by: 'queue', queue };
    return !budget || now() < budget.submitInlineUntil ? INLINE_SENDER : SWEEPER_SENDER;
  };
  for (let page = 1; page <= maxPages; page++) {
    if (budget && now() >= budget.stopStartingAt) return { ...report, stoppedEarly: true };
    const { items, pagination } = await withinDeadline(POLL_PAGE_READ_DEADLINE_MS, (signal) =>
      provider.settlements.list({ status: 'SUCCESSFUL', perPage: SETTLEMENT_PAGE_SIZE, page }, { signal }),
    );
    for (const settlement of items) {
      // Other categories (INSTANT_SETTLEMENT above all: our own payouts) are never ours to pay.
      if (!service.policy.categories.includes(settlement.category)) continue;
      if (budget && now() >= budget.stopStartingAt) return { ...report, stoppedEarly: true };
      report.examined++;
      if (await service.decision(settlement.id)) {
        report.alreadyDecided++;
        continue;
      }
      const sender = senderNow();
      try {
        const result = await service.payOut(settlement.id, 'poll', actor, settlement, sender);
        report[result.outcome]++;
        if (result.outcome === 'paid' && sender.by === 'queue') report.handedOver++;
        if (result.outcome === 'paid' && sender.by === 'sweeper') report.leftToSweeper++;
      } catch (error) {
        report.failed++;
        logger.error('settlement poll could not decide a settlement', {
          settlementId: settlement.id,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    if (items.length === 0 || page >= pagination.totalPages) break;
  }
  return { ...report, stoppedEarly: false };
}
