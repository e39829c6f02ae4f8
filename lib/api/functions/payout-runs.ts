import { payoutRunsOf } from '../../runtime/index.js';
import { apiFunction } from '../api-function.js';
import { payoutRunRoutes } from '../routes/payout-runs.js';

/** `api-payout-runs`: payroll runs (create from a file, approve, cancel, progress, results). */
export const payoutRunsApi = apiFunction<'payoutRuns'>({
  name: 'api-payout-runs',
  routes: payoutRunRoutes,
  services: (runtime) => ({ payoutRuns: payoutRunsOf(runtime) }),
});
