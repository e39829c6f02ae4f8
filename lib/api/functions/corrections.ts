import { bulkCorrectionsOf, correctionJobsOf } from '../../runtime/corrections.js';
import { deadLettersOf } from '../../runtime/dead-letters.js';
import { recurrencesOf } from '../../runtime/recurrences.js';
import { refundsOf } from '../../runtime/refunds.js';
import { apiFunction } from '../api-function.js';
import { approvalRoutes } from '../routes/approvals.js';
import { bulkPayoutItemRoutes } from '../routes/bulk-payout-items.js';
import { correctionJobRoutes } from '../routes/correction-jobs.js';
import { deadLetterRoutes } from '../routes/dead-letters.js';

type Services = 'engine' | 'refunds' | 'recurrences' | 'bulkCorrections' | 'correctionJobs' | 'deadLetters';

/**
 * `api-corrections`: bulk payout items and their corrections, correction jobs, dead letters, and the approvals
 * queue (which lists every kind of instruction waiting for a second person, so it needs each kind's service).
 */
export const correctionsApi = apiFunction<Services>({
  name: 'api-corrections',
  routes: [...bulkPayoutItemRoutes, ...correctionJobRoutes, ...deadLetterRoutes, ...approvalRoutes],
  services: (runtime) => ({
    engine: runtime.engine,
    refunds: refundsOf(runtime),
    recurrences: recurrencesOf(runtime),
    bulkCorrections: bulkCorrectionsOf(runtime),
    correctionJobs: correctionJobsOf(runtime),
    deadLetters: deadLettersOf(runtime),
  }),
});
