import { toKobo } from '../money.js';
import type { ProviderClient } from '../provider/client.js';
import { ProviderRejectedError } from '../provider/errors.js';
import { DeadlineExceededError, withinDeadline } from '../shared/deadline.js';
import type { SendWindow } from '../shared/send-window.js';
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
 * How long a refund request may spend reading the transaction within the caller's send window (the API's request
 * deadline, lib/api/request-deadline.ts), in ms at `now`: no longer than an inline send may take (`deadlineMs`),
 * and ending no later than a send started at the window's last instant would (`sendBy + deadlineMs`). That instant
 * is the one the API's limits proof already fits before the request's deadline with room to answer
 * (test/infra/handler-limits.test.ts), so the read needs no figure of its own. 0 once it has passed.
 *
 * @example transactionReadMs({ sendBy: now + 12_000, deadlineMs: 10_000 }, now) // 10_000
 */
export function transactionReadMs(window: SendWindow, now: number = Date.now()): number {
  return Math.max(0, Math.min(window.deadlineMs, window.sendBy + window.deadlineMs - now));
}

/**
 * `amountPaidOn` within `window` when the caller has one (transactionReadMs): the read is abandoned (its HTTP call
 * aborted, nothing left running) when that time is up, and rejects with `DeadlineExceededError`, at once when no
 * time is left. Nothing is recorded before this read answers, so the caller's retry with the same key starts afresh:
 * the API answers `503 request-deadline` (retry with the same key), as for any request past its deadline.
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
  const readMs = transactionReadMs(window);
  // Not started at all: a read with no time left would still reach the provider before its abort.
  if (readMs === 0) throw new DeadlineExceededError(0);
  return withinDeadline(readMs, (signal) => amountPaidOn(provider, transactionId, { signal }));
}
