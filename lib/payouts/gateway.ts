import type { Payout, ProviderReceipt } from './model.js';

/**
 * What happened when a payout was sent. Expected outcomes are values, not exceptions: the engine must
 * decide on every one of them, and a forgotten `catch` must not be able to turn "unknown" into "failed".
 */
export type SendOutcome =
  /** The provider moved the money. */
  | { readonly kind: 'succeeded'; readonly receipt: ProviderReceipt }
  /** The provider definitively refused; nothing moved (400, 404, 422). */
  | { readonly kind: 'rejected'; readonly code: string; readonly message: string }
  /** Nothing was done and the same payout may be sent again later (refused connection, 401, 403, 429). */
  | {
      readonly kind: 'not_sent';
      readonly code: string;
      readonly message: string;
      readonly retryAfterMs?: number;
    }
  /** The request may have been acted on (timeout, reset, 5xx, unreadable answer): reconcile, never resend. */
  | { readonly kind: 'unknown'; readonly code: string; readonly message: string };

/** What a look-up on the provider's side found for a payout whose outcome is unknown. */
export type FindOutcome =
  | { readonly kind: 'found'; readonly receipt: ProviderReceipt }
  | { readonly kind: 'absent' }
  /** More than one record, or a record in a state we cannot read as paid: a person must look. */
  | { readonly kind: 'ambiguous'; readonly detail: string }
  /** The provider could not be asked now. */
  | { readonly kind: 'lookup_failed'; readonly code: string; readonly message: string };

/** The window of provider records that can belong to one submission attempt. */
export interface SearchWindow {
  readonly from: string;
  readonly to: string;
}

/** The engine's port to the provider; the adapter maps each payout type to its endpoint. */
export interface PayoutGateway {
  send(payout: Payout): Promise<SendOutcome>;
  /**
   * A send is likely soon: start loading and fetching what it needs, without waiting and without calling the
   * provider. Optional; never throws.
   */
  prepare?(): void;
  find(payout: Payout, window: SearchWindow): Promise<FindOutcome>;
}

/** The short marker carried in every narration, by which a payout is found again on the provider's side. */
export function payoutMarker(payoutId: string): string {
  return `po_${payoutId}`;
}
