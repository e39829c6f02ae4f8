import { MoneyError, toKobo } from '../money.js';
import type { Beneficiary } from '../payouts/index.js';
import type { Settlement } from '../provider/index.js';
import { minuteOfDayIn } from '../shared/wall-clock.js';

/** The time zone whose clock the allowed hours are read in. */
export const SETTLEMENT_TIME_ZONE = 'Africa/Lagos';

/**
 * When and how much of a settlement is paid out, configured per deployment (see config.ts).
 * Amounts are integer kobo; hours are minutes since midnight in Lagos, `from` inclusive, `to` exclusive.
 */
export interface SettlementPolicy {
  readonly destination: Beneficiary;
  /** The smallest amount worth a payout, compared with what would be paid (after the keep-back). */
  readonly minimumKobo: number;
  /** Kept in the wallet from every settlement; the rest is paid. */
  readonly keepBackKobo: number;
  /** A window that may wrap midnight (22:00-06:00); `{ from: 0, to: 1440 }` is all day. */
  readonly allowedMinutes: { readonly from: number; readonly to: number };
  /** Settlement categories that are the merchant's to pay out. INSTANT_SETTLEMENT never is: it is a payout. */
  readonly categories: readonly string[];
  /**
   * Settlements created before this instant (ISO 8601) are never paid automatically: turning instant settlement
   * on must not pay out history. Unset: the moment settlement was first turned on, recorded in the table.
   */
  readonly since?: string;
}

/** Why a settlement is never paid out; recorded with the decision. */
export const SkipCode = {
  NotSuccessful: 'SETTLEMENT_NOT_SUCCESSFUL',
  CategoryExcluded: 'CATEGORY_EXCLUDED',
  InvalidAmount: 'INVALID_AMOUNT',
  ZeroAmount: 'ZERO_AMOUNT',
  NothingAfterKeepBack: 'NOTHING_AFTER_KEEP_BACK',
  BelowMinimum: 'BELOW_MINIMUM',
  EngineRejected: 'ENGINE_REJECTED',
  BeforeCutoff: 'BEFORE_CUTOFF',
} as const;
export type SkipCode = (typeof SkipCode)[keyof typeof SkipCode];

/**
 * The policy's verdict. `skip` is final and recorded; `defer` is not: a later trigger (the poll, the
 * next event, ops) decides again inside the allowed hours.
 */
export type PolicyDecision =
  | { readonly kind: 'pay'; readonly amountKobo: number; readonly settlementKobo: number }
  | { readonly kind: 'skip'; readonly code: SkipCode; readonly reason: string }
  | { readonly kind: 'defer'; readonly code: 'OUTSIDE_ALLOWED_HOURS'; readonly reason: string };

/**
 * Decides one settlement. Pure: the same settlement, policy and instant always give the same answer, which
 * is what lets three racing triggers build the very same payout request.
 *
 * @example
 * decideSettlement({ id: 's-1', amount: 1200, status: 'SUCCESSFUL', category: 'MERCHANT_SETTLEMENT', ... }, policy, now)
 * // { kind: 'pay', amountKobo: 120000, settlementKobo: 120000 } with no keep-back
 *
 * @param cutoff settlements created before this instant are skipped (`BEFORE_CUTOFF`); the service passes the
 *   policy's `since` or the recorded moment settlement was turned on
 */
export function decideSettlement(
  settlement: Settlement,
  policy: SettlementPolicy,
  now: Date,
  cutoff?: string,
): PolicyDecision {
  if (settlement.status !== 'SUCCESSFUL') {
    return skip(
      SkipCode.NotSuccessful,
      `settlement status is ${settlement.status}; only SUCCESSFUL is paid out`,
    );
  }
  if (cutoff !== undefined && Date.parse(settlement.createdAt) < Date.parse(cutoff)) {
    return skip(
      SkipCode.BeforeCutoff,
      `created ${settlement.createdAt}, before the cutoff ${cutoff}: settlements from before instant settlement was turned on are not paid automatically`,
    );
  }
  if (!policy.categories.includes(settlement.category)) {
    return skip(
      SkipCode.CategoryExcluded,
      `category ${settlement.category} is not paid out (policy pays ${policy.categories.join(', ')})`,
    );
  }
  let settlementKobo: number;
  try {
    settlementKobo = toKobo(settlement.amount);
  } catch (error) {
    if (!(error instanceof MoneyError)) throw error;
    return skip(SkipCode.InvalidAmount, `amount ${settlement.amount} is not a kobo amount: ${error.message}`);
  }
  if (settlementKobo <= 0) return skip(SkipCode.ZeroAmount, `settlement amount is ${settlement.amount}`);
  const amountKobo = settlementKobo - policy.keepBackKobo;
  if (amountKobo <= 0) {
    return skip(
      SkipCode.NothingAfterKeepBack,
      `amount ${settlementKobo} kobo does not exceed the keep-back of ${policy.keepBackKobo} kobo`,
    );
  }
  if (amountKobo < policy.minimumKobo) {
    return skip(
      SkipCode.BelowMinimum,
      `${amountKobo} kobo to pay is below the minimum of ${policy.minimumKobo} kobo`,
    );
  }
  const minute = minuteOfDayIn(SETTLEMENT_TIME_ZONE, now);
  if (!withinWindow(minute, policy.allowedMinutes)) {
    return {
      kind: 'defer',
      code: 'OUTSIDE_ALLOWED_HOURS',
      reason: `${formatMinutes(minute)} in Lagos is outside the allowed hours ${formatWindow(policy.allowedMinutes)}`,
    };
  }
  return { kind: 'pay', amountKobo, settlementKobo };
}

function skip(code: SkipCode, reason: string): PolicyDecision {
  return { kind: 'skip', code, reason };
}

function withinWindow(minute: number, window: { from: number; to: number }): boolean {
  if (window.from === window.to) return false;
  if (window.from < window.to) return minute >= window.from && minute < window.to;
  // Wraps midnight, e.g. 22:00-06:00.
  return minute >= window.from || minute < window.to;
}

export function formatMinutes(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

export function formatWindow(window: { from: number; to: number }): string {
  return `${formatMinutes(window.from)}-${formatMinutes(window.to)}`;
}
