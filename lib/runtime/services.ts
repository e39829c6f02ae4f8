/**
 * The composition root's feature services, each built from the runtime (its table, ledger, clock, limits and
 * logger) on first use and then kept for the runtime's life: once per Lambda container, once per `npm start`.
 * What calls the provider is such a service too (payout-engine.ts, provider-connection.ts, submissions.ts), so a
 * function that never calls the provider carries none of it. They are functions of their own, not fields of the runtime, each in a file of its own
 * (recurrences.ts, refunds.ts, provider-schedules.ts, corrections.ts, dead-letters.ts, settlements.ts,
 * dead-letter-store.ts, provider.ts, rate-limiter.ts), so a function's bundle carries, and its cold start
 * evaluates, only the services its handler imports: a module's zod schemas are module-level values esbuild must
 * keep once the module is imported. Where a job runs one operation of a service, it asks for that operation alone
 * (`recurrenceSweepOf`, `refundSenderOf`), and each service builds only the provider resources it calls on the
 * runtime's connection. This file gathers them for the whole ops API (`npm start`, which serves every route in
 * one process) and for tests; each API function (lib/api/functions/) and each job imports the ones it needs.
 *
 * Every service shares the ledger's clock, so an injected clock moves them all, and its limits, so a
 * rule, a refund or a correction passes the same gate as a payout.
 */
export { correctionJobStoreOf } from './correction-job-store.js';
export { bulkCorrectionsOf, correctionJobsOf } from './corrections.js';
export { deadLettersOf } from './dead-letters.js';
export { payoutEngineOf } from './engines.js';
export { payoutAuditTrailOf } from './payout-audit-trail.js';
export { payoutListingOf } from './payout-listing.js';
export { providerOf } from './provider.js';
export { providerConnectionOf } from './provider-connection.js';
export { providerSchedulesOf } from './provider-schedules.js';
export { recurrencesOf } from './recurrences.js';
export { refundsOf } from './refunds.js';
export { submissionsOf } from './submissions.js';
