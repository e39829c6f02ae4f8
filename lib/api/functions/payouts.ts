import { payoutAuditPagesOf } from '../../runtime/payout-audit-pages.js';
import { payoutEngineOf } from '../../runtime/payout-engine.js';
import { apiFunction } from '../api-function.js';
import { controlRoutes } from '../routes/controls.js';
import { payoutRoutes } from '../routes/payouts.js';

/** `api-payouts`: a payout's life (create, list, read, cancel, approve, resolve) and the controls (pause, resume). */
export const payoutsApi = apiFunction<'payouts' | 'engine' | 'payoutAuditPages'>({
  name: 'api-payouts',
  routes: [...payoutRoutes, ...controlRoutes],
  services: (runtime) => ({
    payouts: runtime.payouts,
    engine: payoutEngineOf(runtime),
    payoutAuditPages: payoutAuditPagesOf(runtime),
  }),
});
