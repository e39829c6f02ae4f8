import { payoutAuditTrailOf, payoutEngineOf, payoutListingOf } from '../../runtime/index.js';
import { apiFunction } from '../api-function.js';
import { controlRoutes } from '../routes/controls.js';
import { payoutRoutes } from '../routes/payouts.js';

/**
 * `api-payouts`: a payout's life (create, list, read, cancel, approve, reject, resolve) and the controls (pause,
 * resume). The export of a date range is the books' (api-statements).
 */
export const payoutsApi = apiFunction<'payouts' | 'engine' | 'payoutAuditTrail' | 'payoutListing'>({
  name: 'api-payouts',
  routes: [...payoutRoutes, ...controlRoutes],
  services: (runtime) => ({
    payouts: runtime.payouts,
    engine: payoutEngineOf(runtime),
    payoutAuditTrail: payoutAuditTrailOf(runtime),
    payoutListing: payoutListingOf(runtime),
  }),
});
