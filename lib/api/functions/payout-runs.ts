import { payoutRunsOf } from '../../runtime/payout-runs.js';
import { apiFunction } from '../api-function.js';
import { payoutRunRoutes } from '../routes/payout-runs.js';

/** `api-payout-runs`: payroll runs (create from a file, approve, cancel, progress, results). */
export const payoutRunsApi = apiFunction<'payoutRuns'>({
  name: 'api-payout-runs',
  routes: payoutRunRoutes,
  services: (runtime) => ({ payoutRuns: payoutRunsOf(runtime) }),
});
