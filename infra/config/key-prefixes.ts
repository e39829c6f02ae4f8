import type { PayoutOrigin } from '../../lib/payouts/model.js';

/**
 * The table's partition keys by what they hold, as `dynamodb:LeadingKeys` patterns (IAM `StringLike`: `*` is any
 * run of characters). Each handler's writes are conditioned to the patterns it names in infra/handlers.ts, so a
 * function can write only the kinds of item its code writes (docs/iam-proof.md has the table per function).
 * Each pattern mirrors one key builder of lib/ (its name in the comment); test/infra/key-prefixes.test.ts checks
 * that every builder's keys match their pattern and no other.
 */
export const KeyPrefix = {
  /** A payout and its audit items (`keys.payout`, `keys.audit`, lib/table/table-design.ts). */
  payout: 'PAYOUT#*',
  /** A payout's idempotency record, per origin (`keys.idempotency`): a function creates only its own origin's. */
  payoutIdempotency: (origin: PayoutOrigin) => `IDEMPOTENCY#${origin}#*`,
  /** The one controls item, the pause (`keys.controls`): exact, no wildcard. */
  controls: 'CONTROL',
  /** The daily cap counters (`keys.dailyCap`). */
  dailyCap: 'CAP#*',
  /**
   * A refund and its audit items (`refundKeys.refund`, `refundKeys.audit`, lib/refunds/store/dynamodb-refund-store.ts), and its
   * accepted item by the provider's refund id (`acceptedRefundKeys`, lib/refunds/accepted-refund-item.ts), written in
   * the same transaction as the refund.
   */
  refund: 'REFUND#*',
  /** The total refunded per transaction (`refundKeys.refundedTotal`). */
  refundedTotal: 'REFUNDED#*',
  refundIdempotency: 'IDEMPOTENCY#refund#*',
  /** A recurring rule, its occurrences and audit (`recurrenceKeys`, lib/recurrence/store/table-keys.ts). */
  recurrence: 'RECURRENCE#*',
  recurrenceIdempotency: 'IDEMPOTENCY#recurrence#*',
  /** A settlement's decision and deferral (`settlementKeys`, lib/settlement/store/dynamodb-decision-store.ts). */
  settlement: 'SETTLEMENT#*',
  /** When instant settlement was first turned on (`settlementKeys.enabledSince`). */
  settlementConfig: 'SETTLEMENT_CONFIG',
  /** The copy of the provider's schedules, its sync status and cursor (lib/provider-schedules/store.ts). */
  providerSchedule: 'PROVIDER_SCHEDULE#*',
  /** A dead-lettered inbound event (lib/events/dead-letter.ts). */
  deadLetter: 'DEAD_LETTER#*',
  /** A correction job and its rows (`jobKeys`, lib/bulk-corrections/store/dynamodb-job-store.ts). */
  correctionJob: 'CORRECTION_JOB#*',
  correctionJobIdempotency: 'IDEMPOTENCY#correction-job#*',
  /** A bulk payout item's state, corrections and audit (`bulkItemKeys`, lib/bulk-corrections/store/dynamodb-bulk-item-store.ts). */
  bulkItem: 'BULK_ITEM#*',
  /** A payout run, its rows and its file records (`runKeys`, lib/payout-runs/run-store.ts). */
  payoutRun: 'PAYOUT_RUN#*',
  payoutRunIdempotency: 'IDEMPOTENCY#payout-run#*',
  /** A daily statement's report and lines (`statementKeys`, lib/statements/store.ts). */
  statement: 'STATEMENT#*',
  /** A notified event's delivery marker (`notificationKeys.marker`, lib/notifications/delivery-marker.ts). */
  notification: 'NOTIFICATION#*',
  /** An operator's audit and proposals (`operatorKeys`, lib/operators/operator-store.ts). */
  operator: 'OPERATOR#*',
  /** A disabled operator's marker, by user pool `sub` (`operatorAccessKey`, lib/operators/access.ts). */
  operatorAccess: 'OPERATOR_ACCESS#*',
  /** The submission workers' fleet-wide rate limiter (lib/payouts/store/dynamodb-rate-limiter.ts). */
  rateLimiter: 'RATELIMIT#provider',
} as const;
