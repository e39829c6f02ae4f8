import type { CapChange } from '../payouts/index.js';
import type { CursorPage } from '../shared/paging.js';
import type { Refund, RefundAuditEvent, RefundStatus } from './model.js';

export type CreateRefundOutcome =
  | { readonly created: true; readonly refund: Refund }
  | { readonly created: false; readonly existing: Refund };

/** What commits together with a refund's change, all or nothing. */
export interface RefundChange {
  /** The audit event of the change (every change the service makes has one). */
  readonly audit?: RefundAuditEvent;
  /** Fail with PayoutsPausedError when payouts are paused at commit time (the claim before sending). */
  readonly requireNotPaused?: boolean;
  /** The `merchant` daily-cap counter: reserve (with `limitKobo`) or release. */
  readonly cap?: CapChange;
  /**
   * Change of the transaction's refunded total: positive reserves (fails with RefundExceedsAmountPaidError
   * above `after.amountPaidKobo`), negative releases.
   */
  readonly totalDeltaKobo?: number;
}

/**
 * The store of refunds, the port the refund service and sender depend on: a create that holds an idempotency key
 * with the refund's first audit event and its share of the transaction's refunded total; then version-guarded
 * changes, each committed with its audit event and the controls it needs (pause, daily cap, refunded total), all or
 * nothing. In the table: `DynamoDbRefundStore` (store/dynamodb-refund-store.ts); in memory, for unit tests:
 * `InMemoryRefundStore` (store/in-memory-refund-store.ts).
 */
export interface RefundStore {
  /**
   * Writes the refund, its idempotency key and audit event together, with the refund's amount added to the
   * transaction's refunded total when it counts (`countsInTotal`), or returns the refund that holds the key.
   *
   * @throws RefundExceedsAmountPaidError when the total would pass `refund.amountPaidKobo`
   */
  create(refund: Refund, audit?: RefundAuditEvent): Promise<CreateRefundOutcome>;
  get(id: string): Promise<Refund | undefined>;
  /** The refund that holds an idempotency key, if any. */
  findByIdempotencyKey(key: string): Promise<Refund | undefined>;
  /**
   * Refunds newest first, optionally of one status.
   *
   * @throws InvalidCursorError when the cursor is not one this listing issued
   */
  list(query: { status?: RefundStatus; limit: number; cursor?: string }): Promise<CursorPage<Refund>>;
  /** The refund's audit trail, oldest first. */
  getAudit(id: string): Promise<RefundAuditEvent[]>;
  /** The sum of our refunds of a transaction that count (accepted, not refused), in kobo. */
  refundedTotal(transactionId: string): Promise<number>;
  /**
   * Replaces the refund only if it is still at `before.version`, together with everything in `change`.
   *
   * @throws ConcurrentModificationError, PayoutsPausedError, DailyCapExceededError, RefundExceedsAmountPaidError
   */
  update(before: Refund, after: Refund, change?: RefundChange): Promise<Refund>;
  /** Refunds the sweeper should look at by `dueBy` (refundWorkDueAt), earliest first. */
  due(dueBy: string, limit: number): Promise<Refund[]>;
}
