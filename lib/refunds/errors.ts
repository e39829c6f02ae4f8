/** Base of every error the refund service raises on purpose. */
export class RefundError extends Error {
  override readonly name: string = 'RefundError';
  readonly code: string = 'REFUND_ERROR';
}

/** The idempotency key was used before for a different refund request. */
export class RefundIdempotencyConflictError extends RefundError {
  override readonly name = 'RefundIdempotencyConflictError';
  override readonly code = 'IDEMPOTENCY_CONFLICT';
  constructor(
    readonly idempotencyKey: string,
    readonly existingRefundId: string,
  ) {
    super(
      `idempotency key "${idempotencyKey}" was already used for refund ${existingRefundId} with a different request`,
    );
  }
}

/** No refund has this id. */
export class RefundNotFoundError extends RefundError {
  override readonly name = 'RefundNotFoundError';
  override readonly code = 'REFUND_NOT_FOUND';
  constructor(readonly refundId: string) {
    super(`refund ${refundId} does not exist`);
  }
}

/** Another writer changed the refund between our read and our conditional write. */
export class RefundConcurrentModificationError extends RefundError {
  override readonly name = 'RefundConcurrentModificationError';
  override readonly code = 'CONCURRENT_MODIFICATION';
  constructor(refundId: string, options?: ErrorOptions) {
    super(`refund ${refundId} was changed concurrently`, options);
  }
}
