import type { Payout, PayoutStatus } from './model.js';

/** Base of every error the payout engine raises on purpose. */
export class PayoutError extends Error {
  override readonly name: string = 'PayoutError';
  readonly code: string = 'PAYOUT_ERROR';
}

/** The input of a command broke a rule (amount above the maximum, kobo on a whole-naira endpoint, …). */
export class PayoutValidationError extends PayoutError {
  override readonly name = 'PayoutValidationError';
  override readonly code = 'PAYOUT_INVALID';
  constructor(
    message: string,
    readonly issues: readonly { path: string; message: string }[] = [],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The idempotency key was used before with a different request. */
export class IdempotencyConflictError extends PayoutError {
  override readonly name = 'IdempotencyConflictError';
  override readonly code = 'IDEMPOTENCY_CONFLICT';
  constructor(
    readonly idempotencyKey: string,
    readonly existingPayoutId: string,
  ) {
    super(
      `idempotency key "${idempotencyKey}" was already used for payout ${existingPayoutId} with a different request`,
    );
  }
}

/** No payout has this id. */
export class PayoutNotFoundError extends PayoutError {
  override readonly name = 'PayoutNotFoundError';
  override readonly code = 'PAYOUT_NOT_FOUND';
  constructor(readonly payoutId: string) {
    super(`payout ${payoutId} does not exist`);
  }
}

/** The payout is not in a status that allows the command (cancel after submission, approve twice, …). */
export class InvalidTransitionError extends PayoutError {
  override readonly name = 'InvalidTransitionError';
  override readonly code = 'INVALID_TRANSITION';
  constructor(
    readonly payout: Payout,
    readonly to: PayoutStatus,
    detail?: string,
  ) {
    super(detail ?? `payout ${payout.id} is ${payout.status} and cannot become ${to}`);
  }
}

/** Another writer changed the payout between our read and our conditional write. */
export class ConcurrentModificationError extends PayoutError {
  override readonly name = 'ConcurrentModificationError';
  override readonly code = 'CONCURRENT_MODIFICATION';
  constructor(
    readonly payoutId: string,
    options?: ErrorOptions,
  ) {
    super(`payout ${payoutId} was changed concurrently`, options);
  }
}

/** The approver is the requester (four-eyes rule). */
export class ApprovalForbiddenError extends PayoutError {
  override readonly name = 'ApprovalForbiddenError';
  override readonly code = 'APPROVAL_FORBIDDEN';
}

/** Payouts are paused; nothing is submitted until ops resume. */
export class PayoutsPausedError extends PayoutError {
  override readonly name = 'PayoutsPausedError';
  override readonly code = 'PAYOUTS_PAUSED';
}

/** Claiming the payout would take its source wallet past the daily cap. */
export class DailyCapExceededError extends PayoutError {
  override readonly name = 'DailyCapExceededError';
  override readonly code = 'DAILY_CAP_EXCEEDED';
}

/** A list cursor that this API did not produce. */
export class InvalidCursorError extends PayoutError {
  override readonly name = 'InvalidCursorError';
  override readonly code = 'INVALID_CURSOR';
}

/** The provider record named to resolve a payout as paid is not the payout's payment (or does not exist). */
export class ResolutionMismatchError extends PayoutError {
  override readonly name = 'ResolutionMismatchError';
  override readonly code = 'RESOLUTION_MISMATCH';
}

/** The provider could not be asked to verify a record now; nothing was changed. */
export class ProviderLookupFailedError extends PayoutError {
  override readonly name = 'ProviderLookupFailedError';
  override readonly code = 'PROVIDER_LOOKUP_FAILED';
}
