import { settlementsOf } from '../../runtime/index.js';
import { apiFunction } from '../api-function.js';
import { instantSettlementRoutes } from '../routes/instant-settlements.js';

/**
 * `api-settlements`: instant settlements asked for by a person. A settlement is paid out as a payout, so this
 * function carries the payout engine's send path and the settlement policy, and nothing else.
 */
export const settlementsApi = apiFunction<'settlements'>({
  name: 'api-settlements',
  routes: instantSettlementRoutes,
  services: (runtime) => ({ settlements: settlementsOf(runtime) }),
});
