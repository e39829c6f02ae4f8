import type { Runtime } from '../runtime/runtime.js';
import { once } from '../runtime/service-cache.js';
import { apiContextFrom } from './api-context.js';
import type { ApiContext } from './context.js';
import { type ApiHandler, createRouter, type Route } from './router.js';
import { approvalRoutes } from './routes/approvals.js';
import { bulkPayoutItemRoutes } from './routes/bulk-payout-items.js';
import { controlRoutes } from './routes/controls.js';
import { correctionJobRoutes } from './routes/correction-jobs.js';
import { deadLetterRoutes } from './routes/dead-letters.js';
import { futurePayoutRoutes } from './routes/future-payouts.js';
import { instantSettlementRoutes } from './routes/instant-settlements.js';
import { metaRoutes } from './routes/meta.js';
import { payoutRoutes } from './routes/payouts.js';
import { providerScheduleRoutes } from './routes/provider-schedules.js';
import { providerViewRoutes } from './routes/provider-views.js';
import { recurringPayoutRoutes } from './routes/recurring-payouts.js';
import { refundRoutes } from './routes/refunds.js';

export type { ApiContext } from './context.js';
export type { ApiHandler } from './router.js';

export const apiRoutes: readonly Route[] = [
  ...payoutRoutes,
  ...controlRoutes,
  ...refundRoutes,
  ...recurringPayoutRoutes,
  ...providerScheduleRoutes,
  ...instantSettlementRoutes,
  ...bulkPayoutItemRoutes,
  ...correctionJobRoutes,
  ...deadLetterRoutes,
  ...approvalRoutes,
  ...providerViewRoutes,
  ...futurePayoutRoutes,
  ...metaRoutes,
];

/**
 * The ops API as one function of an API Gateway HTTP API v2 event: the Lambda and `npm start` both call it.
 *
 * @example
 * const handle = createApiHandler({ engine, refunds, provider, logger, mode: 'local' });
 * const result = await handle(event);
 */
export function createApiHandler(ctx: ApiContext): ApiHandler {
  return createRouter(apiRoutes, ctx);
}

/** The ops API on the composition root's runtime, built once per runtime (per Lambda container, per `npm start`). */
export function apiHandlerOf(runtime: Runtime): ApiHandler {
  return once(runtime, 'apiHandler', () => createApiHandler(apiContextFrom(runtime)));
}
