import { toKobo } from '../money.js';
import { type ProviderClient, ProviderRejectedError } from '../provider/index.js';
import { readWithinWindow, type SendWindow } from '../shared/send-window.js';
import { RefundTransactionNotRefundableError } from './errors.js';

/**
 * What the provider says was paid on a transaction, in kobo: the most our refunds of it may return in total. It is
 * the `amountPaid` that `GET /transaction/info` carries for a payment-link transaction (lib/provider/CONTRACT.md).
 * A transaction the provider does not know, or one with nothing paid, is refused naming `transactionId`.
 *
 * `signal` abandons the read (a caller's deadline); without one the client's own call deadline bounds it.
 *
 * @example const paidKobo = await amountPaidOn(client, transactionId);
 * @throws RefundTransactionNotRefundableError
 */
export async function amountPaidOn(
  provider: Pick<ProviderClient, 'transactions'>,
  transactionId: string,
  options: { signal?: AbortSignal } = {},
): Promise<number> {
  try {
    const { data } = await provider.transactions.info(
      { transactionId },
      options.signal ? { signal: options.signal } : undefined,
    );
    const { amountPaid, status } = data.transaction;
    const paidKobo = amountPaid === undefined || status !== 'SUCCESS' ? 0 : toKobo(amountPaid);
    if (paidKobo <= 0) {
      throw new RefundTransactionNotRefundableError(
        'transactionId',
        `transaction ${transactionId} has no payment that could be refunded`,
      );
    }
    return paidKobo;
  } catch (error) {
    // The id is the client's: the provider not knowing it (404), or refusing it as malformed (400), is the
    // client's 422, never a 5xx.
    if (error instanceof ProviderRejectedError && (error.status === 404 || error.status === 400)) {
      throw new RefundTransactionNotRefundableError(
        'transactionId',
        `the provider has no transaction ${transactionId}`,
        { cause: error },
      );
    }
    throw error;
  }
}

/**
 * `amountPaidOn` within `window` when the caller has one (readWithinWindow, lib/shared/send-window.ts): the read is
 * abandoned (its HTTP call aborted, nothing left running) when its time within the window is up, and rejects with
 * `DeadlineExceededError`, at once when no time is left. Nothing is recorded before this read answers, so the
 * caller's retry with the same key starts afresh: the API answers `503 request-deadline` (retry with the same key),
 * as for any request past its deadline.
 *
 * @example const paidKobo = await amountPaidWithin(client, transactionId, request.deadline.sendWindow);
 * @throws RefundTransactionNotRefundableError, DeadlineExceededError
 */
export async function amountPaidWithin(
  provider: Pick<ProviderClient, 'transactions'>,
  transactionId: string,
  window: SendWindow | undefined,
): Promise<number> {
  if (!window) return amountPaidOn(provider, transactionId);
  return readWithinWindow(window, (signal) => amountPaidOn(provider, transactionId, { signal }));
}
