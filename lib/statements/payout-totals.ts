import {
  PAYOUT_STATUSES,
  PAYOUT_TYPES,
  type Payout,
  type PayoutStatus,
  type PayoutType,
} from '../payouts/index.js';

/** Count and sum of a set of lines or records. */
export interface Tally {
  readonly count: number;
  readonly amountKobo: number;
}

/**
 * Our payouts created on a statement's day (their `createdAt` in the statement's zone), counted and summed as
 * they stood when the day was run: by status and by type, every status and type named (0 when none), so the
 * totals have a fixed size whatever the day holds.
 */
export interface PayoutTotals {
  /** False when the count stopped before the day's last payout (the run's deadline or PAYOUT_TOTALS_MAX). */
  readonly complete: boolean;
  readonly count: number;
  readonly amountKobo: number;
  readonly byStatus: Readonly<Record<PayoutStatus, Tally>>;
  readonly byType: Readonly<Record<PayoutType, Tally>>;
}

/** The most payouts of one day a run counts (400 pages of 250): past it, `complete: false`. */
export const PAYOUT_TOTALS_MAX = 100_000;

const zero = <K extends string>(keys: readonly K[]) =>
  Object.fromEntries(keys.map((key) => [key, { count: 0, amountKobo: 0 }])) as Record<K, Tally>;

/** Totals that count nothing yet. */
export function emptyPayoutTotals(): PayoutTotals {
  return {
    complete: true,
    count: 0,
    amountKobo: 0,
    byStatus: zero(PAYOUT_STATUSES),
    byType: zero(PAYOUT_TYPES),
  };
}

const add = (tally: Tally | undefined, amountKobo: number): Tally => ({
  count: (tally?.count ?? 0) + 1,
  amountKobo: (tally?.amountKobo ?? 0) + amountKobo,
});

/**
 * `totals` with `payouts` counted in (a page at a time, so a day of any size is never held at once).
 *
 * @example addPayouts(emptyPayoutTotals(), page.items).byStatus.succeeded // { count: 3, amountKobo: 750000 }
 */
export function addPayouts(totals: PayoutTotals, payouts: readonly Payout[]): PayoutTotals {
  const byStatus = { ...totals.byStatus };
  const byType = { ...totals.byType };
  let { count, amountKobo } = totals;
  for (const payout of payouts) {
    count++;
    amountKobo += payout.amountKobo;
    byStatus[payout.status] = add(byStatus[payout.status], payout.amountKobo);
    byType[payout.instruction.type] = add(byType[payout.instruction.type], payout.amountKobo);
  }
  return { ...totals, count, amountKobo, byStatus, byType };
}
