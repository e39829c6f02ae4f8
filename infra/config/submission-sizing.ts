import type { StageConfig } from './stage-config.js';
import { SIZING_LATENCY_MS, SWEEP_TICK_SECONDS } from './submission.js';

/**
 * How fast a stage's workers can drain the submission queue (payouts/s): the provider's rate limit when the
 * stage sets one (the fleet is paced to it), and never more than `maxConcurrency x batchSize / L` at the
 * latency the stage is sized for. docs/submission.md, "Sizing a stage".
 */
export function drainRatePerSecond(
  config: Pick<StageConfig, 'submission' | 'providerRateLimitPerSecond'>,
): number {
  const { maxConcurrency, batchSize } = config.submission;
  const byConcurrency = (maxConcurrency * batchSize * 1000) / SIZING_LATENCY_MS;
  return Math.min(byConcurrency, config.providerRateLimitPerSecond ?? Number.POSITIVE_INFINITY);
}

/**
 * Most payouts one sweeper tick enqueues: the stage's `submission.maxEnqueuePerTick`, or two ticks' worth of
 * draining. Enough that the queue never runs dry between ticks; bounded so that a message never waits in the
 * queue past FIFO's deduplication window, after which the next tick's copy of it would not be dropped
 * (test/infra/handler-limits.test.ts checks both).
 */
export function enqueuePerTick(
  config: Pick<StageConfig, 'submission' | 'providerRateLimitPerSecond'>,
): number {
  return (
    config.submission.maxEnqueuePerTick ?? Math.ceil(2 * SWEEP_TICK_SECONDS * drainRatePerSecond(config))
  );
}

/**
 * Rows of payout runs one sweeper tick turns into payouts: what the fleet sends in a tick and a half, so a run's
 * payouts never run the queue dry while the next tick creates more, and other payouts created meanwhile wait
 * behind at most that (docs/payout-runs.md, "Fairness").
 */
export function runRowsPerTick(
  config: Pick<StageConfig, 'submission' | 'providerRateLimitPerSecond'>,
): number {
  return Math.ceil(1.5 * SWEEP_TICK_SECONDS * drainRatePerSecond(config));
}

/**
 * The submission settings as the environment variables `lib/runtime/runtime-config.ts` reads: the stack gives
 * them to every function, and `npm start` and the benchmark to the local handlers, so all run as deployed.
 */
export function submissionEnvironment(
  config: Pick<StageConfig, 'submission' | 'providerRateLimitPerSecond'>,
): Record<string, string> {
  return {
    SUBMIT_MAX_ENQUEUE_PER_TICK: String(enqueuePerTick(config)),
    RUN_ROWS_PER_TICK: String(runRowsPerTick(config)),
    ...(config.providerRateLimitPerSecond !== undefined && {
      PROVIDER_RATE_LIMIT_PER_SECOND: String(config.providerRateLimitPerSecond),
    }),
  };
}
