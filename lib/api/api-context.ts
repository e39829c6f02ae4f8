import { approvalSourcesOf } from '../runtime/approvals.js';
import { payoutAuditPagesOf } from '../runtime/payout-audit-pages.js';
import { payoutEngineOf } from '../runtime/payout-engine.js';
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
import type { ApiContext } from './context.js';

/** The ops API's view of the composition root: every service it routes to, built once per runtime. */
export function apiContextFrom(runtime: Runtime): ApiContext {
  return {
    payouts: runtime.payouts,
    engine: payoutEngineOf(runtime),
    payoutAuditPages: payoutAuditPagesOf(runtime),
    recurrences: recurrencesOf(runtime),
    providerSchedules: providerSchedulesOf(runtime),
    provider: providerOf(runtime),
    refunds: refundsOf(runtime),
    settlements: settlementsOf(runtime),
    bulkCorrections: bulkCorrectionsOf(runtime),
    correctionJobs: correctionJobsOf(runtime),
    deadLetters: deadLettersOf(runtime),
    approvals: approvalSourcesOf(runtime),
    logger: runtime.logger,
    mode: runtime.mode,
    sessionNamedRoles: runtime.env.OPS_SESSION_NAMED_ROLES,
  };
}
