import { DynamoDbRateLimiter, PACING_FRACTION, type ProviderRateLimiter } from '../payouts/index.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

/**
 * The provider's fleet-wide rate limit for the submission workers, built on first use; undefined without
 * PROVIDER_RATE_LIMIT_PER_SECOND. The workers pace their sends by it and the reconciler its look-ups, so only
 * their bundles carry the limiter.
 */
export function rateLimiterOf(runtime: Runtime): ProviderRateLimiter | undefined {
  const perSecond = runtime.env.PROVIDER_RATE_LIMIT_PER_SECOND;
  if (perSecond === undefined) return undefined;
  return once(
    runtime,
    'rateLimiter',
    () =>
      new DynamoDbRateLimiter(runtime.dynamoDb, runtime.tableName, {
        perSecond: perSecond * PACING_FRACTION,
      }),
  );
}
