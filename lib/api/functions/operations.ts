import { providerOf, refundsOf } from '../../runtime/index.js';
import { apiFunction } from '../api-function.js';
import { healthRoutes } from '../routes/health.js';
import { providerViewRoutes } from '../routes/provider-views.js';
import { refundRoutes } from '../routes/refunds.js';

/** `api-operations`: refunds, the provider's views and the health check. */
export const operationsApi = apiFunction<'payouts' | 'refunds' | 'provider'>({
  name: 'api-operations',
  routes: [...refundRoutes, ...providerViewRoutes, ...healthRoutes],
  services: (runtime) => ({
    payouts: runtime.payouts,
    refunds: refundsOf(runtime),
    provider: providerOf(runtime),
  }),
});
