import * as z from 'zod/mini';

// Built on first use (z.lazy), not when a function loads this module: the engine takes only the type from it
// (docs/benchmarks.md, cold start).

/** The engine's tunables; every limit in kobo, every duration in milliseconds. */
export const EngineConfigSchema = z.lazy(() =>
  z.object({
    /** The largest single payout accepted. */
    maxPayoutKobo: z.int().check(z.positive()),
    /** The most that may leave one source wallet per Lagos calendar day, counted at submission. */
    dailyCapKobo: z.int().check(z.positive()),
    /** Payouts of at least this amount wait for a second person's approval. */
    approvalThresholdKobo: z.int().check(z.positive()),
    /** How long a submission may stay in `submitting` before it is presumed crashed. */
    submitLeaseMs: z.int().check(z.positive()),
    /** How long the sweeper leaves alone a new payout that its creator submits itself (API, event, settlement). */
    inlineSubmitHoldMs: z.int().check(z.positive()),
    /** How long after an attempt an absent provider record proves the payout failed. */
    reconcileGraceMs: z.int().check(z.positive()),
    /**
     * How many attempts of one payout may be proved absent at the provider: below it a proved-absent attempt is
     * followed by a new one (new marker, growing wait); at it the payout fails (`ABSENT_AT_PROVIDER`).
     */
    maxAbsentAttempts: z.int().check(z.positive()),
    /** How long after it was proved absent an attempt's marker is still looked for (a late record is a double). */
    watchWindowMs: z.int().check(z.positive()),
    /** How long the reconciler keeps trying before it hands the payout to a person. */
    reconcileGiveUpMs: z.int().check(z.positive()),
    /** Wait between reconciliation tries of one payout. */
    reconcileIntervalMs: z.int().check(z.positive()),
    /** First wait before resubmitting a payout the provider could not take (doubles per attempt). */
    retryBaseMs: z.int().check(z.positive()),
    /** After this many "unavailable" answers a payout fails (nothing was ever sent). */
    maxSubmissionAttempts: z.int().check(z.positive()),
    /** A scheduled payout found due later than this after its time is marked `missed`, never paid silently late. */
    maxLatenessMs: z.int().check(z.positive()),
    /** IANA zone whose calendar day the daily cap counts. */
    capTimeZone: z.string(),
  }),
);
export type EngineConfig = z.infer<typeof EngineConfigSchema>;

export const defaultEngineConfig: EngineConfig = {
  maxPayoutKobo: 500_000_000, // 5,000,000.00 naira
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
