/** The runtime room's front door: what other rooms may use of it. */
export { traceDynamoDbCalls } from './aws-call-tracing.js';
export { correctionJobStoreOf } from './correction-job-store.js';
export { deadLetterStoreOf } from './dead-letter-store.js';
export type { DomainEventRuntime } from './domain-event-runtime.js';
export { payoutEngineOf, reconcilingEngineOf, sendingEngineOf } from './engines.js';
export { type DeepHealth, deepHealth } from './health.js';
export { withRuntime } from './lambda-handler.js';
export { operatorsOf } from './operators.js';
export { payoutAuditTrailOf } from './payout-audit-trail.js';
export { payoutDaysOf, payoutListingOf } from './payout-listing.js';
export { payoutRunsOf } from './payout-runs.js';
export { providerOf } from './provider.js';
export { providerConnectionOf } from './provider-connection.js';
export { rateLimiterOf } from './rate-limiter.js';
export { recurrenceSweepOf } from './recurrence-sweep.js';
export { recurrencesOf } from './recurrences.js';
export { refundSenderOf } from './refunds.js';
export { runMaterialiserOf } from './run-materialiser.js';
export type { Runtime } from './runtime.js';
export { once } from './service-cache.js';
export {
  bulkCorrectionsOf,
  correctionJobsOf,
  deadLettersOf,
  providerSchedulesOf,
  refundsOf,
} from './services.js';
export { settlementsOf } from './settlements.js';
export { statementStoreOf, statementsOf } from './statements.js';
export { deliveringQueueOf, submissionsOf } from './submissions.js';
