import type { BulkCorrectionService, CorrectionJobService } from '../bulk-corrections/index.js';
import type { DeadLetterService } from '../events/index.js';
import type { DisabledOperators, IdentitySettings, OperatorService } from '../operators/index.js';
import type { PayoutRunService } from '../payout-runs/index.js';
import type { PayoutAuditTrail, PayoutEngine, PayoutLedger, PayoutListing } from '../payouts/index.js';
import type { ProviderClient } from '../provider/index.js';
import type { ProviderScheduleService } from '../provider-schedules/index.js';
import type { RecurrenceService } from '../recurrence/index.js';
import type { RefundService } from '../refunds/index.js';
import type { SettlementService } from '../settlement/index.js';
import type { Logger } from '../shared/logger.js';
import type { PayoutDays, StatementService, StatementStore } from '../statements/index.js';
import type { ApprovalSources } from './approvals.js';
import type { ApiDeadlines } from './request-deadline.js';

/** What the statement routes use: the stored reports, and the reconciliation for a person's re-run. */
export interface StatementsApi {
  readonly store: StatementStore;
  readonly service: StatementService;
}

/**
 * The services the ops API routes to. Each API function (lib/api/functions/) builds only those its routes use,
 * so its bundle carries no other: a route declares the ones it reads (`RouteRequest<'refunds'>`).
 */
export interface ApiServices {
  /** The payouts as records: create, read, cancel, the controls (approve and pause over its context). */
  readonly payouts: PayoutLedger;
  /** The ledger and what calls the provider (a payout submitted at once, a review resolved as paid). */
  readonly engine: PayoutEngine;
  /** Payouts' whole audit trails, page by page. */
  readonly payoutAuditTrail: PayoutAuditTrail;
  /** The payouts as listed: by status or all, by time and type, page by page. */
  readonly payoutListing: PayoutListing;
  /** The payouts created on days of the statement's zone, page by page (the export). */
  readonly payoutDays: PayoutDays;
  readonly refunds: RefundService;
  readonly recurrences: RecurrenceService;
  /** The read view of the provider's own scheduled and recurrent payouts. */
  readonly providerSchedules: ProviderScheduleService;
  /** Undefined when the deployment has no settlement policy: the routes answer 503. */
  readonly settlements: SettlementService | undefined;
  readonly bulkCorrections: BulkCorrectionService;
  /** Bulk corrections as jobs: accepted here, worked by the queue workers. */
  readonly correctionJobs: CorrectionJobService;
  /** Payroll runs: one file approved once, each row paid once as its own payout. */
  readonly payoutRuns: PayoutRunService;
  /** What waits for a second person, by kind (the approvals queue). */
  readonly approvals: ApprovalSources;
  /** Inbound events no handler could accept: listed, replayed or discarded by a person. */
  readonly deadLetters: DeadLetterService;
  /** The daily statements: stored reports and lines, and the reconciliation a person re-runs. */
  readonly statements: StatementsApi;
  /**
   * The operators of the user pool, managed by admins (`/operators`); undefined when the deployment names no pool
   * (the routes answer 503).
   */
  readonly operators: OperatorService | undefined;
  /** Only the read-through views use the provider directly. */
  readonly provider: Pick<ProviderClient, 'settlements' | 'transactions' | 'stores'>;
}
export type ApiService = keyof ApiServices;

/** What every route and the router may use, whichever function serves them; who a caller is, by its identity settings. */
export interface ApiEnvironment extends IdentitySettings {
  readonly logger: Logger;
  /**
   * `local`: the claims of a token the local server verified, or (where `localPrincipalHeader` trusts it) the
   * `X-Ops-Principal` header; `aws` only the IAM principal of the signed request.
   */
  readonly mode: 'aws' | 'local';
  /** How requests are bounded; API_DEADLINES (request-deadline.ts) unless a test sets its own. */
  readonly deadlines?: ApiDeadlines;
  /** Refuses (401) the tokens of operators an admin disabled; every API function on a runtime has it. */
  readonly disabledOperators?: DisabledOperators;
}

/**
 * What the route handlers may use: the environment and the services `S` (every service by default, as the
 * local server and the tests build it); built once per process from the runtime.
 */
export type ApiContext<S extends ApiService = ApiService> = ApiEnvironment & Pick<ApiServices, S>;
