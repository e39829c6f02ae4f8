import {
  ProviderInvalidRequestError,
  ProviderRejectedError,
  ProviderUnavailableError,
} from '../provider/index.js';
import { REFUND_CAP_COUNTER, type Refund, RefundStatus } from './model.js';
import type { RefundChange } from './refund-store.js';

/** What a refund that moved no money gives back: its day's cap reservation, and (`total`) its share of the total. */
export function releases(
  refund: Refund,
  options: { total: boolean },
): { changes: Partial<Refund>; change: Pick<RefundChange, 'cap' | 'totalDeltaKobo'> } {
  const releaseTotal = options.total && refund.countsInTotal === true;
  return {
    changes: { capDay: undefined, ...(releaseTotal && { countsInTotal: false }) },
    change: {
      ...(refund.capDay && {
        cap: { capKey: REFUND_CAP_COUNTER, day: refund.capDay, deltaKobo: -refund.amountKobo },
      }),
      ...(releaseTotal && { totalDeltaKobo: -refund.amountKobo }),
    },
  };
}

/** The status a provider failure leaves a refund in: refused, not sent (retry), or unknown (never resent). */
export function classify(error: unknown): { status: RefundStatus } {
  if (error instanceof ProviderRejectedError || error instanceof ProviderInvalidRequestError) {
    return { status: RefundStatus.Rejected };
  }
  if (error instanceof ProviderUnavailableError) return { status: RefundStatus.NotSent };
  return { status: RefundStatus.Unknown };
}

/** The stored `failure` of a provider error: its stable code and the provider's message. */
export function failureOf(error: unknown): { code: string; message: string } {
  if (error instanceof ProviderRejectedError) {
    return { code: error.code, message: error.providerMessage ?? `provider answered ${error.status}` };
  }
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') {
    return { code: error.code, message: error.message };
  }
  return { code: 'UNEXPECTED', message: error instanceof Error ? error.message : String(error) };
}
