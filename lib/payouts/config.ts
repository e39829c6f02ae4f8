import type { ApproverLimits } from '../controls/index.js';

/**
 * The engine's tunables; every limit in kobo, every duration in milliseconds. A plain type: the environment
 * variables that set them are validated where they are read (lib/runtime/runtime-config.ts).
 */
export interface EngineConfig {
  /** The largest single payout accepted. */
  maxInstructionKobo: number;
  /** The most that may leave one source wallet per Lagos calendar day, counted at submission. */
  dailyCapKobo: number;
  /** Payouts of at least this amount wait for a second person's approval. */
  approvalThresholdKobo: number;
  /**
   * Payouts and other instructions of at least this amount wait for two approvals by two persons
   * (`SECOND_APPROVAL_THRESHOLD_KOBO`). Unset (the default): one approval releases them.
   */
  secondApprovalThresholdKobo?: number;
  /** The most each approver may approve (`APPROVER_LIMITS`). Unset (the default): no approver has a limit. */
  approverLimits?: ApproverLimits;
  /** How long a submission may stay in `submitting` before it is presumed crashed. */
  submitLeaseMs: number;
  /** How long the sweeper leaves alone a new payout that its creator submits itself (API, event, settlement). */
  inlineSubmitHoldMs: number;
  /** How long after an attempt an absent provider record proves the payout failed. */
  reconcileGraceMs: number;
  /**
   * How many attempts of one payout may be proved absent at the provider: below it a proved-absent attempt is
   * followed by a new one (new marker, growing wait); at it the payout fails (`ABSENT_AT_PROVIDER`).
   */
  maxAbsentAttempts: number;
  /** How long after it was proved absent an attempt's marker is still looked for (a late record is a double). */
  watchWindowMs: number;
  /** How long the reconciler keeps trying before it hands the payout to a person. */
  reconcileGiveUpMs: number;
  /** Wait between reconciliation tries of one payout. */
  reconcileIntervalMs: number;
  /** First wait before resubmitting a payout the provider could not take (doubles per attempt). */
  retryBaseMs: number;
  /** After this many "unavailable" answers a payout fails (nothing was ever sent). */
  maxSubmissionAttempts: number;
  /** A scheduled payout found due later than this after its time is marked `missed`, never paid silently late. */
  maxLatenessMs: number;
  /** IANA zone whose calendar day the daily cap counts. */
  capTimeZone: string;
  /**
   * The provider's id of the merchant's main wallet (`MAIN_WALLET_ID`): wallet transfers and debits from it count
   * against the main wallet's daily cap counter. Unset, every wallet counts there (docs/controls.md, "The cap").
   */
  mainWalletId?: string;
}

export const defaultEngineConfig: EngineConfig = {
  maxInstructionKobo: 500_000_000, // 5,000,000.00 naira
  dailyCapKobo: 5_000_000_000, // 50,000,000.00 naira
  approvalThresholdKobo: 100_000_000, // 1,000,000.00 naira
  submitLeaseMs: 120_000,
  inlineSubmitHoldMs: 60_000,
  reconcileGraceMs: 10 * 60_000,
  maxAbsentAttempts: 5,
  watchWindowMs: 48 * 60 * 60_000,
  reconcileGiveUpMs: 24 * 60 * 60_000,
  reconcileIntervalMs: 60_000,
  retryBaseMs: 30_000,
  maxSubmissionAttempts: 10,
  maxLatenessMs: 6 * 60 * 60_000,
  capTimeZone: 'Africa/Lagos',
};
