import { bulkCorrectionsOf, correctionJobsOf } from '../../runtime/index.js';
import { apiFunction } from '../api-function.js';
import { bulkPayoutItemRoutes } from '../routes/bulk-payout-items.js';
import { correctionJobRoutes } from '../routes/correction-jobs.js';

/** `api-corrections`: bulk payout items and their corrections, one by one or as correction jobs. */
export const correctionsApi = apiFunction<'bulkCorrections' | 'correctionJobs'>({
  name: 'api-corrections',
  routes: [...bulkPayoutItemRoutes, ...correctionJobRoutes],
  services: (runtime) => ({
    bulkCorrections: bulkCorrectionsOf(runtime),
    correctionJobs: correctionJobsOf(runtime),
  }),
});
