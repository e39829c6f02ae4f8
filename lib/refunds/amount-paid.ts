import { toKobo } from '../money.js';
import type { ProviderClient } from '../provider/client.js';
import { ProviderRejectedError } from '../provider/errors.js';
import { RefundTransactionNotRefundableError } from './errors.js';

/**
 * What the provider says was paid on a transaction, in kobo: the most our refunds of it may return in total. It is
 * the `amountPaid` that `GET /transaction/info` carries for a payment-link transaction (lib/provider/CONTRACT.md).
 * A transaction the provider does not know, or one with nothing paid, is refused naming `transactionId`.
 *
 * @example const paidKobo = await amountPaidOn(client, transactionId);
 * @throws RefundTransactionNotRefundableError
 */
export async function amountPaidOn(
  provider: Pick<ProviderClient, 'transactions'>,
  transactionId: string,
): Promise<number> {
  try {
    const { data } = await provider.transactions.info({ transactionId });
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
