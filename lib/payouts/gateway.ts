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
      /** The provider answered 429: its rate limit, not this payout; never counted as a failed attempt. */
      readonly rateLimited?: boolean;
    }
  /** The request may have been acted on (timeout, reset, 5xx, unreadable answer): reconcile, never resend. */
  | { readonly kind: 'unknown'; readonly code: string; readonly message: string };

/** One provider record that carries an attempt's marker, as a person needs to see it in a review reason. */
export interface ProviderRecordSummary {
  readonly transactionId: string;
  /** The record's amount in kobo; undefined when it cannot be read as an amount. */
  readonly amountKobo?: number;
  /** Where the money went, as the record says: `<bank code>/<account number>`. */
  readonly destination: string;
  readonly createdAt: string;
  readonly status: string;
  /** Why the record is not this attempt's payment; absent when it matches in every respect. */
  readonly mismatch?: string;
}

/** What a look-up on the provider's side found for one submission attempt. */
export type FindOutcome =
  | { readonly kind: 'found'; readonly receipt: ProviderReceipt; readonly record: ProviderRecordSummary }
  | { readonly kind: 'absent' }
  /** More than one record, a record that disagrees, or one not final: a person must look. */
  | {
      readonly kind: 'ambiguous';
      readonly detail: string;
      readonly candidates: readonly ProviderRecordSummary[];
    }
  /** The provider could not be asked now. */
  | { readonly kind: 'lookup_failed'; readonly code: string; readonly message: string };

/** The records to search for one submission attempt: its marker, within a window of record creation times. */
export interface SearchWindow {
  readonly from: string;
  readonly to: string;
  /** The attempt whose marker is looked for (`payoutMarker(payout.id, attemptNumber)`); default 1. */
  readonly attemptNumber?: number;
  /** Abandons the search's provider calls (the search then answers `lookup_failed`, never an absence). */
  readonly signal?: AbortSignal;
}

/** What reading one provider record by its transaction id proved about a payout (a person's resolution). */
export type RecordCheck =
  /** The record is this payout's: a SUCCESS debit with one of its attempt markers, amount and destination. */
  | {
      readonly kind: 'matches';
      readonly receipt: ProviderReceipt;
      readonly attemptNumber: number;
      readonly record: ProviderRecordSummary;
    }
  /** The record exists but is not this payout's payment, for the reason given; `receipt` is what it says. */
  | {
      readonly kind: 'mismatch';
      readonly reason: string;
      readonly record: ProviderRecordSummary;
      readonly receipt: ProviderReceipt;
      /** The attempt whose marker ends its narration, when it carries one of this payout's. */
      readonly attemptNumber?: number;
    }
  | { readonly kind: 'not_found'; readonly reason: string }
  | { readonly kind: 'lookup_failed'; readonly code: string; readonly message: string };

/** How one send is bounded beyond the gateway's own defaults. */
export interface SendOptions {
  /**
   * The whole provider call's deadline (retries included): past it the send is abandoned and, having maybe
   * reached the provider, answers `unknown`.
   */
  readonly deadlineMs?: number;
}

/** The engine's port to the provider; the adapter maps each payout type to its endpoint. */
export interface PayoutGateway {
  /** Sends the payout's current attempt, marked with `payoutMarker(payout.id, providerAttemptOf(payout))`. */
  send(payout: Payout, options?: SendOptions): Promise<SendOutcome>;
  /**
   * A send is likely soon: start loading and fetching what it needs, without waiting and without calling the
   * provider. Optional; never throws.
   */
  prepare?(): void;
  find(payout: Payout, window: SearchWindow): Promise<FindOutcome>;
  /**
   * Reads the record a person names when resolving a payout, and checks it is one of the payout's attempts.
   * Optional: without it a resolution as `succeeded` cannot be verified and needs a second person.
   */
  check?(payout: Payout, transactionId: string): Promise<RecordCheck>;
}

/** The provider attempt a payout's current (or last) submission is: the number in its marker. */
export function providerAttemptOf(payout: Payout): number {
  return payout.attempt?.providerAttempt ?? 1;
}

/**
 * The marker carried as the last word of every narration, by which an attempt is found again on the provider's
 * side: `po_<payoutId>` for the first attempt, `po_<payoutId>_<n>` for attempt n > 1, so a re-attempt after an
 * attempt was proved absent can never be mistaken for the earlier one (nor the earlier one for it).
 *
 * @example payoutMarker('01KJQ3Z8V6W9X2Y4A7B1C3D5E7', 2) // 'po_01KJQ3Z8V6W9X2Y4A7B1C3D5E7_2'
 */
export function payoutMarker(payoutId: string, attemptNumber = 1): string {
  return attemptNumber <= 1 ? `po_${payoutId}` : `po_${payoutId}_${attemptNumber}`;
}

/**
 * True when `marker` is the narration's last whitespace-separated word. Matching a substring instead would let
 * any narration that merely contains the marker (a client's own text, or another attempt's `po_<id>_<n>`)
 * pass for the payout.
 */
export function endsWithMarker(narration: string | undefined, marker: string): boolean {
  if (narration === undefined) return false;
  const words = narration.trim().split(/\s+/);
  return words.at(-1) === marker;
}
