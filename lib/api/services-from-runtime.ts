import {
  bulkCorrectionsOf,
  correctionJobsOf,
  deadLettersOf,
  operatorsOf,
  payoutAuditTrailOf,
  payoutDaysOf,
  payoutEngineOf,
  payoutListingOf,
  payoutRunsOf,
  providerOf,
  providerSchedulesOf,
  type Runtime,
  recurrencesOf,
  refundsOf,
  settlementsOf,
  statementStoreOf,
  statementsOf,
} from '../runtime/index.js';
import { apiEnvironmentOf } from './api-function.js';
import { approvalSourcesOf } from './approval-sources.js';
import type { ApiContext } from './services.js';

/** The ops API's view of the composition root: every service it routes to, built once per runtime. */
export function apiContextFrom(runtime: Runtime): ApiContext {
  return {
    payouts: runtime.payouts,
    engine: payoutEngineOf(runtime),
    payoutAuditTrail: payoutAuditTrailOf(runtime),
    payoutListing: payoutListingOf(runtime),
    payoutDays: payoutDaysOf(runtime),
    recurrences: recurrencesOf(runtime),
    providerSchedules: providerSchedulesOf(runtime),
    provider: providerOf(runtime),
    refunds: refundsOf(runtime),
    settlements: settlementsOf(runtime),
    bulkCorrections: bulkCorrectionsOf(runtime),
    correctionJobs: correctionJobsOf(runtime),
    deadLetters: deadLettersOf(runtime),
    payoutRuns: payoutRunsOf(runtime),
    approvals: approvalSourcesOf(runtime),
    statements: { store: statementStoreOf(runtime), service: statementsOf(runtime) },
    // Locally the pool is cognito-local's, which npm start and the tests pass in with `operatorsOf(runtime, pool)`.
    operators: operatorsOf(runtime),
    ...apiEnvironmentOf(runtime),
  };
}
