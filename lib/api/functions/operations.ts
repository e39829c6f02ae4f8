import { providerOf } from '../../runtime/provider.js';
import { refundsOf } from '../../runtime/refunds.js';
import { settlementsOf } from '../../runtime/settlements.js';
import { apiFunction } from '../api-function.js';
import { healthRoutes } from '../routes/health.js';
import { instantSettlementRoutes } from '../routes/instant-settlements.js';
import { providerViewRoutes } from '../routes/provider-views.js';
import { refundRoutes } from '../routes/refunds.js';

/** `api-operations`: refunds, instant settlements, the provider's views and the health check. */
export const operationsApi = apiFunction<'engine' | 'refunds' | 'settlements' | 'provider'>({
  name: 'api-operations',
  routes: [...refundRoutes, ...instantSettlementRoutes, ...providerViewRoutes, ...healthRoutes],
  services: (runtime) => ({
    engine: runtime.engine,
    refunds: refundsOf(runtime),
    settlements: settlementsOf(runtime),
    provider: providerOf(runtime),
  }),
});
