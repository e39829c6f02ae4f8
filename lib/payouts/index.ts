/** The payouts room's front door: what other rooms may use of it. */

export {
  type Approval,
  ApprovalForbiddenError,
  DailyCapExceededError,
  PayoutsPausedError,
  type Principal,
  type Rejection,
  systemPrincipal,
} from '../controls/index.js';
export {
  type PayoutProvider,
  ProviderPayoutGateway,
  ProviderPayoutSender,
} from './adapters/provider-payout-gateway.js';
export { receiptOfRecord } from './adapters/provider-record-search.js';
export { attemptOfMarker, mismatchOf, summarise } from './adapters/record-match.js';
export { SqsDeliveringQueue } from './adapters/sqs-delivering-queue.js';
export { queueOfArn, regionOfQueueUrl, SqsSubmissionQueue } from './adapters/sqs-submission-queue.js';
export { defaultEngineConfig, type EngineConfig } from './config.js';
export { addMs, type EngineContext, type MetricsSink } from './engine/context.js';
export { pausePayouts, resumePayouts } from './engine/controls.js';
export { createAndSubmit, submitIfPending } from './engine/create-and-submit.js';
export type { CreatePayoutCommand, CreatePayoutResult } from './engine/create-payout.js';
export type { DispatchReport } from './engine/dispatch.js';
export { handOverPending } from './engine/hand-over.js';
export { approvePayout, rejectPayout, resolveReview } from './engine/payout-commands.js';
export { type ReconcileReport, reconcilePayouts } from './engine/reconcile-payouts.js';
export {
  type RequestedSubmitResult,
  type SubmitRequestedOptions,
  submitRequested,
} from './engine/submit-requested.js';
export type { SweepReport } from './engine/sweep.js';
export { type FoundLook, markPaidTwice } from './engine/watch-attempts.js';
export {
  CreationCompanionRefusedError,
  ProviderLookupFailedError,
  ResolutionMismatchError,
} from './errors.js';
export { debitedAccountOf, describePayout, describePayoutRequest } from './instruction.js';
export {
  type AuditEvent,
  type Beneficiary,
  type Controls,
  newlyPaidTwice,
  PAYOUT_STATUSES,
  PAYOUT_TYPES,
  type Payout,
  type PayoutInstruction,
  PayoutOrigin,
  PayoutStatus,
  type PayoutType,
  type ResolutionProposal,
  TERMINAL_STATUSES,
} from './model.js';
export { PayoutEngine } from './payout-engine.js';
export { PayoutLedger } from './payout-ledger.js';
export { type PayoutSweeper, payoutSweeper } from './payout-sweeper.js';
export { MAX_SEND_LATENESS_MS, PACING_FRACTION, type ProviderRateLimiter } from './queue/rate-limiter.js';
export {
  type SubmissionQueue,
  type SubmissionRequest,
  SubmissionRequestSchema,
} from './queue/submission-queue.js';
export {
  BeneficiarySchema,
  type CreatePayoutRequest,
  CreatePayoutRequestSchema,
  IdempotencyKeySchema,
  NARRATION_MAX_LENGTH,
  payoutRequestVariants,
} from './schemas.js';
export { PayoutAuditTrail } from './store/audit-trail.js';
export {
  capUpdateItem,
  pauseCheckItem,
  reserveOnCapShards,
  type TransactItem,
} from './store/control-items.js';
export { DynamoDbPayoutStore } from './store/dynamodb-payout-store.js';
export { DynamoDbRateLimiter } from './store/dynamodb-rate-limiter.js';
export { InMemoryControls } from './store/in-memory-controls.js';
export { fromPayoutItem } from './store/item-codec.js';
export { PayoutListing } from './store/payout-listing.js';
export type { CapChange, CreationCompanion, ListPage, ListQuery } from './store/payout-store.js';
