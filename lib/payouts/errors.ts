import { errorKind, InvalidTransitionError } from '../shared/errors.js';
import type { Payout, PayoutStatus } from './model.js';

/**
 * The payout engine's own failures. The kinds every feature shares (not found, idempotency conflict, concurrent
 * modification, invalid transition, validation, invalid cursor) are in lib/shared/errors.ts.
 */

/** The payout is not in a status that allows the command, said the same way wherever it is refused. */
export function invalidPayoutTransition(
  payout: Payout,
  to: PayoutStatus,
  detail?: string,
): InvalidTransitionError {
  return new InvalidTransitionError(
    'payout',
    detail ?? `payout ${payout.id} is ${payout.status} and cannot become ${to}`,
  );
}

/**
 * A write meant to commit with a payout's creation (CreationCompanion: a settlement's decision) failed its
 * condition while the idempotency key was free: nothing was written. The record it would have written exists
 * already; its owner reads it.
 */
export class CreationCompanionRefusedError extends /* @__PURE__ */ errorKind(
  'CreationCompanionRefusedError',
  'CREATION_COMPANION_REFUSED',
) {}

/** The provider record named to resolve a payout as paid is not the payout's payment (or does not exist). */
export class ResolutionMismatchError extends /* @__PURE__ */ errorKind(
  'ResolutionMismatchError',
  'RESOLUTION_MISMATCH',
) {}

/** The provider could not be asked to verify a record now; nothing was changed. */
export class ProviderLookupFailedError extends /* @__PURE__ */ errorKind(
  'ProviderLookupFailedError',
  'PROVIDER_LOOKUP_FAILED',
) {}
