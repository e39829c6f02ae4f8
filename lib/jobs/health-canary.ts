import type { MetricsSink } from '../payouts/index.js';
import { Settlements } from '../provider/index.js';
import { type DeepHealth, deepHealth, providerConnectionOf, type Runtime } from '../runtime/index.js';
import type { Logger } from '../shared/logger.js';

/**
 * The canary's metric: 1 when the deep check failed, 0 when it passed, written on every run, so that no data
 * at all means the canary itself did not run (the alarm treats that as a failure too). Written once without a
 * `check` dimension (the alarm's) and once per check (`table`, `provider`), naming what failed.
 */
export const DEEP_HEALTH_FAILED_METRIC = 'DeepHealthFailed';

/**
 * One run of the scheduled health canary (`functions/health-canary.ts`): the deep check of `GET
 * /health?deep=true` (lib/runtime/health.ts) run in-process, not over the network, as the metric the canary alarm
 * watches. A failure is logged at ERROR with what failed (never a secret: the check's details name none).
 *
 * @example const health = await runHealthCanary(runtime, metrics, logger);
 */
export async function runHealthCanary(
  parts: Parameters<typeof deepHealth>[0],
  metrics: MetricsSink,
  logger: Logger,
  options: { deadlineMs?: number } = {},
): Promise<DeepHealth> {
  const health = await deepHealth(parts, options);
  metrics.count(DEEP_HEALTH_FAILED_METRIC, health.status === 'ok' ? 0 : 1);
  const failed: Record<string, string> = {};
  for (const [check, result] of Object.entries(health.checks)) {
    metrics.count(DEEP_HEALTH_FAILED_METRIC, result.status === 'ok' ? 0 : 1, { check });
    if (result.status === 'failed') failed[check] = result.detail;
  }
  if (health.status === 'ok') logger.debug('deep health check passed');
  else logger.error('deep health check failed', { failed });
  return health;
}

/** The scheduled function's entry point: the canary on the runtime's engine, metrics and logger. */
export function healthCanary(runtime: Runtime): Promise<DeepHealth> {
  return runHealthCanary(healthPartsOf(runtime), runtime.payouts.ctx.metrics, runtime.logger);
}

/** What the deep check reads, from the runtime: the ledger's controls and the provider's settlements only. */
export function healthPartsOf(runtime: Runtime): Parameters<typeof deepHealth>[0] {
  return {
    payouts: runtime.payouts,
    provider: { settlements: new Settlements(providerConnectionOf(runtime).requester) },
  };
}
