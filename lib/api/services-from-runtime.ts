import { approvalSourcesOf } from './approval-sources.js';
import { payoutEngineOf } from '../runtime/engines.js';
import { operatorsOf } from '../runtime/operators.js';
import { payoutAuditTrailOf } from '../runtime/payout-audit-trail.js';
import { payoutDaysOf, payoutListingOf } from '../runtime/payout-listing.js';
import { payoutRunsOf } from '../runtime/payout-runs.js';
import { providerOf } from '../runtime/provider.js';
import type { Runtime } from '../runtime/runtime.js';
import {
  bulkCorrectionsOf,
  correctionJobsOf,
  deadLettersOf,
  providerSchedulesOf,
  recurrencesOf,
  refundsOf,
} from '../runtime/services.js';
import { settlementsOf } from '../runtime/settlements.js';
import { statementStoreOf, statementsOf } from '../runtime/statements.js';
import { apiEnvironmentOf } from './api-function.js';
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
