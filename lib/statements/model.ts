import * as z from '../shared/zod.js';
import type { PayoutTotals, Tally } from './payout-totals.js';

export type { Tally } from './payout-totals.js';

/**
 * What one line of a daily statement says about one provider record or one payout of ours. `matched` and
 * `other_credit` explain money; every other kind is a finding: a person looks at it (docs/statements.md).
 */
export const StatementLineKind = {
  /**
   * A provider record explained by exactly one payout of ours (marker, amount, destination and fee agree), or by
   * one refund of ours (its provider refund id and amount agree).
   */
  Matched: 'matched',
  /** A payout we record as succeeded, or a refund the provider accepted, whose record it never lists for the day. */
  OursNotAtProvider: 'ours_not_at_provider',
  /** A debit the provider lists that no payout or refund of ours explains. */
  ProviderNotOurs: 'provider_not_ours',
  /**
   * A record with a payout's marker whose amount, destination or type disagrees with the payout, or a refund's
   * record whose amount disagrees with the refund.
   */
  AmountMismatch: 'amount_mismatch',
  /** A payout's record whose charges differ from the charges we recorded when it was paid. */
  FeeMismatch: 'fee_mismatch',
  /** A second (or later) provider debit for one payout or one refund: money paid twice. */
  Duplicate: 'duplicate',
  /** A debit with a payout's marker while we record the payout as not paid (failed, cancelled, still unknown). */
  StatusMismatch: 'status_mismatch',
  /** A credit no payout of ours made (customer funding, a settlement into the wallet): income, listed for the totals. */
  OtherCredit: 'other_credit',
} as const;
export type StatementLineKind = (typeof StatementLineKind)[keyof typeof StatementLineKind];

export const STATEMENT_LINE_KINDS = Object.values(StatementLineKind) as readonly StatementLineKind[];

/** The kinds a person must act on: each line of them raises a `StatementMismatch` metric and its alarm. */
export const FINDING_KINDS: readonly StatementLineKind[] = STATEMENT_LINE_KINDS.filter(
  (kind) => kind !== StatementLineKind.Matched && kind !== StatementLineKind.OtherCredit,
);

export const isFinding = (kind: StatementLineKind): boolean => FINDING_KINDS.includes(kind);

/** One line of a statement. Money is integer kobo; `key` is unique within the day and kind. */
export interface StatementLine {
  readonly kind: StatementLineKind;
  /**
   * The provider record's id, or the payout's (the refund's) id for a line about a payout (a refund) the provider
   * does not list.
   */
  readonly key: string;
  readonly transactionId?: string;
  readonly payoutId?: string;
  /** Our refund the record is (or should be) the debit of. */
  readonly refundId?: string;
  /** The attempt whose marker the record carries. */
  readonly attempt?: number;
  readonly type?: string;
  readonly category?: string;
  readonly status?: string;
  /** The provider's amount, or ours for a payout (a refund) the provider does not list. */
  readonly amountKobo: number;
  readonly chargesKobo?: number;
  /** What we expected where it differs: the payout's (the refund's) amount, or the charges we recorded. */
  readonly expectedAmountKobo?: number;
  readonly expectedChargesKobo?: number;
  readonly destination?: string;
  readonly narration?: string;
  readonly createdAt?: string;
  /** Why the line is what it is, in a sentence a finance person reads. */
  readonly detail: string;
}

/** Who ran a day and when (the schedule is `system:statements`). */
export interface StatementRun {
  readonly by: string;
  readonly at: string;
  /** Findings this run saw for the first time. */
  readonly newFindings: number;
}

/** The report of one day: what the provider listed, how it was explained, what a person must look at. */
export interface StatementReport {
  /** The calendar day in `timeZone`, `YYYY-MM-DD`. */
  readonly date: string;
  readonly timeZone: string;
  /** The day's instants, inclusive, as sent to the provider's listing. */
  readonly window: { readonly from: string; readonly to: string };
  /** `complete` once every page was read; `incomplete` when the page bound stopped the walk (nothing is proven). */
  readonly completeness: 'complete' | 'incomplete';
  readonly pagesRead: number;
  /** Lines per kind with their amounts. */
  readonly byKind: Readonly<Record<StatementLineKind, Tally>>;
  readonly findings: number;
  /** The provider's records of the day by type (`DEBIT`, `CREDIT`) and by status, with their charges. */
  readonly providerTotals: {
    readonly byType: Readonly<Record<string, Tally & { readonly chargesKobo: number }>>;
    readonly byStatus: Readonly<Record<string, Tally>>;
  };
  /**
   * Our payouts created on the day, by status and by type (payout-totals.ts). Absent when the run stopped before
   * counting them (the provider's listing cut short), and on reports stored before they were counted.
   */
  readonly payoutTotals?: PayoutTotals;
  /** Payouts moved to `needs_review` as paid twice by this report (over every run of the day). */
  readonly movedToReview: readonly string[];
  readonly generatedAt: string;
  /** The latest runs of the day, newest first. */
  readonly runs: readonly StatementRun[];
}

/** A statement day as the API and CLI take it: `YYYY-MM-DD`, a real calendar date. */
export const StatementDateSchema = z.string().check(
  z.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD'),
  z.refine((value) => {
    const day = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(value);
  }, 'must be a real calendar date'),
);
