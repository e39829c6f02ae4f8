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

/** A refund the controls refuse before anything is stored or sent; `path` names the request field at fault. */
export class RefundRefusedError extends RefundError {
  override readonly name: string = 'RefundRefusedError';
  override readonly code: string = 'REFUND_REFUSED';
  constructor(
    readonly path: 'amount' | 'transactionId',
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`${path}: ${reason}`, options);
  }
}

/** The refund would take the transaction's refunded total above what was paid on it. */
export class RefundExceedsAmountPaidError extends RefundRefusedError {
  override readonly name = 'RefundExceedsAmountPaidError';
  override readonly code = 'REFUND_EXCEEDS_AMOUNT_PAID';
  constructor(
    readonly amountKobo: number,
    readonly amountPaidKobo: number,
    readonly alreadyRefundedKobo: number,
    options?: ErrorOptions,
  ) {
    super(
      'amount',
      `${amountKobo} kobo would take the refunds of the transaction to ${alreadyRefundedKobo + amountKobo} kobo, above the ${amountPaidKobo} kobo paid (${alreadyRefundedKobo} kobo already refunded or in progress)`,
      options,
    );
  }
}

/** The provider does not know the transaction, or it carries nothing paid that could be refunded. */
export class RefundTransactionNotRefundableError extends RefundRefusedError {
  override readonly name = 'RefundTransactionNotRefundableError';
  override readonly code = 'TRANSACTION_NOT_REFUNDABLE';
}

/** The refund is not in a status that allows the command (approve twice, approve a refund that needs none). */
export class RefundInvalidTransitionError extends RefundError {
  override readonly name = 'RefundInvalidTransitionError';
  override readonly code = 'INVALID_TRANSITION';
}
