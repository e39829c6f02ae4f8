import { PayoutAutomationError } from '../shared/errors.js';

/** A refund the controls refuse before anything is stored or sent; `path` names the request field at fault. */
export class RefundRefusedError extends PayoutAutomationError {
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
