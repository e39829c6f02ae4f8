import type { Payout, SubmissionQueue } from '../payouts/index.js';
import type { SendWindow } from '../shared/send-window.js';
import type { SettlementDecision } from './model.js';

/**
 * Who sends a paid settlement's payout. `inline`: the trigger itself, at once (the ops API, whose caller waits
 * for what the provider said; with the request's `sendWindow`, only within it, as `POST /payouts`). `queue`: the submission workers, handed the payout at once (the event and the
 * poll, where the workers are deployed; docs/submission.md, "Settlements"). `sweeper`: the sweeper's next tick
 * (a poll without the queue and short of time).
 */
export type PayoutSender =
  | { readonly by: 'inline'; readonly sendWindow?: SendWindow }
  | { readonly by: 'queue'; readonly queue: SubmissionQueue }
  | { readonly by: 'sweeper' };

export const INLINE_SENDER: PayoutSender = { by: 'inline' };
export const SWEEPER_SENDER: PayoutSender = { by: 'sweeper' };

/**
 * What one trigger achieved. `deferred` means "not now": no decision is recorded (the deferral is, with its reason,
 * for ops to see), and a later trigger decides.
 */
export type PayOutResult =
  | { readonly outcome: 'paid'; readonly decision: SettlementDecision; readonly payout?: Payout }
  | { readonly outcome: 'skipped'; readonly decision: SettlementDecision }
  | { readonly outcome: 'deferred'; readonly reason: string };
