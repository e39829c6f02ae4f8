import { payoutAuditTrailOf } from '../../runtime/payout-audit-trail.js';
import { payoutEngineOf } from '../../runtime/payout-engine.js';
import { payoutDaysOf, payoutListingOf } from '../../runtime/payout-listing.js';
import { apiFunction } from '../api-function.js';
import { controlRoutes } from '../routes/controls.js';
import { payoutExportRoutes } from '../routes/payout-export.js';
import { payoutRoutes } from '../routes/payouts.js';

/** `api-payouts`: a payout's life (create, list, export, read, cancel, approve, resolve) and the controls (pause, resume). */
export const payoutsApi = apiFunction<
  'payouts' | 'engine' | 'payoutAuditTrail' | 'payoutListing' | 'payoutDays'
>({
  name: 'api-payouts',
  // The export first: `/payouts/export.csv` is a path `/payouts/{id}` would match too.
  routes: [...payoutExportRoutes, ...payoutRoutes, ...controlRoutes],
  services: (runtime) => ({
    payouts: runtime.payouts,
    engine: payoutEngineOf(runtime),
    payoutAuditTrail: payoutAuditTrailOf(runtime),
    payoutListing: payoutListingOf(runtime),
    payoutDays: payoutDaysOf(runtime),
  }),
});
