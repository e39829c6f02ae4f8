import type { Principal } from '../controls/index.js';

/** What started a settlement payout; every trigger goes through the same idempotent path. */
export const SettlementTrigger = { Event: 'event', Api: 'api', Poll: 'poll' } as const;
export type SettlementTrigger = (typeof SettlementTrigger)[keyof typeof SettlementTrigger];

/**
 * The recorded, final decision about one settlement: paid (with the payout that pays it) or skipped (with
 * the reason). Deferrals (outside the allowed hours) are not recorded: a later trigger decides again.
 */
export interface SettlementDecision {
  readonly settlementId: string;
  readonly decision: 'paid' | 'skipped';
  readonly code?: string;
  readonly reason: string;
  readonly payoutId?: string;
  /** What the payout pays (after the keep-back), kobo. */
  readonly amountKobo?: number;
  /** The provider's record as read fresh when deciding. */
  readonly settlement: {
    readonly status: string;
    readonly category: string;
    readonly amountKobo?: number;
    readonly date: string;
  };
  readonly trigger: SettlementTrigger;
  readonly decidedBy: Principal;
  readonly decidedAt: string;
}

/**
 * The latest deferral of a settlement not yet decided (outside the allowed hours): shown to ops with its reason,
 * replaced by each later deferral and removed in the same write that records the decision.
 */
export interface SettlementDeferral {
  readonly settlementId: string;
  readonly code: string;
  readonly reason: string;
  readonly settlement: SettlementDecision['settlement'];
  readonly trigger: SettlementTrigger;
  readonly deferredBy: Principal;
  readonly deferredAt: string;
}

/** What `GET /instant-settlements` lists: decisions, and deferrals still waiting for one. */
export type SettlementListing =
  | ({ readonly kind: 'decision' } & SettlementDecision)
  | ({ readonly kind: 'deferral' } & SettlementDeferral);

/** The filter of `GET /instant-settlements`. */
export const SETTLEMENT_LISTING_STATES = ['paid', 'skipped', 'deferred'] as const;
export type SettlementListingState = (typeof SETTLEMENT_LISTING_STATES)[number];
