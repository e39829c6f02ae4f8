import type { Principal } from '../controls/index.js';
import { MoneyEntryPoint, type MoneyInstruction } from '../controls/index.js';
import { type BulkItemState, CORRECTABLE_FIELDS, type FieldChange, type FieldValues } from './model.js';
import type { CorrectionFields } from './schemas.js';

/**
 * A correction of an item as known here (`before`), described to the gate as a money instruction; the gate alone
 * derives from it the amount at stake, the cap counter and whether a second person must approve. The same for the
 * request (`releasedBy` the requester) and its approval (`releasedBy` the approver).
 *
 * - debits: the main wallet. The provider pays a bulk payout's items out of the merchant's main wallet (its bulk
 *   runs are merchant payouts; CONTRACT.md's table of debits has no other account for them), so corrections count
 *   on the main wallet's counter with bank transfers and refunds.
 * - amount: a new amount is the request's. A new destination alone sends the item's whole amount elsewhere: the one
 *   an earlier correction of ours set, as that person's word (`amountSetBy`), or not known here (the provider's
 *   records carry no amount and it offers no read of an item). A narration or phone number alone sends nothing
 *   new: 0 at stake.
 * - redirect: a new `accountNumber`/`bankCode`, entered by the requester; the old one provably never got the money
 *   only when the provider's latest record here says the item is invalid.
 */
export function describeCorrection(
  fields: CorrectionFields,
  before: BulkItemState | undefined,
  requestedBy: Principal,
  releasedBy: Principal,
): MoneyInstruction {
  const redirects = fields.accountNumber !== undefined || fields.bankCode !== undefined;
  return {
    entryPoint: MoneyEntryPoint.BulkCorrection,
    debits: { kind: 'main_wallet' },
    amount: amountOf(fields, before, redirects),
    ...(redirects && {
      redirect: {
        enteredBy: requestedBy,
        previousInvalidAtProvider: before !== undefined && !before.record.isValid,
      },
    }),
    releasedBy,
  };
}

function amountOf(
  fields: CorrectionFields,
  before: BulkItemState | undefined,
  redirects: boolean,
): MoneyInstruction['amount'] {
  if (fields.amount !== undefined) return { kobo: fields.amount, source: { from: 'request' } };
  if (!redirects) return { kobo: 0, source: { from: 'request' } };
  const known = before?.values.amountKobo;
  // A state stored before `amountSetBy` was kept names nobody behind its amount: not known here.
  if (typeof known === 'number' && before?.amountSetBy) {
    return { kobo: known, source: { from: 'person', by: before.amountSetBy, at: before.updatedAt } };
  }
  // The provider holds the item's amount, but its records do not carry it: never taken as 0.
  return { kobo: undefined, source: { from: 'provider' } };
}

export function valuesOf(fields: CorrectionFields): FieldValues {
  return {
    ...(fields.accountNumber !== undefined && { accountNumber: fields.accountNumber }),
    ...(fields.bankCode !== undefined && { bankCode: fields.bankCode }),
    ...(fields.amount !== undefined && { amountKobo: fields.amount }),
    ...(fields.phoneNumber !== undefined && { phoneNumber: fields.phoneNumber }),
    ...(fields.narration !== undefined && { narration: fields.narration }),
  };
}

/** Before -> after per field; before comes from the last stored state, unknown on the item's first correction. */
export function changesOf(before: BulkItemState | undefined, to: FieldValues): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of CORRECTABLE_FIELDS) {
    const value = to[field];
    if (value === undefined) continue;
    const from = before?.values[field];
    changes.push({ field, from: from ?? null, fromKnown: from !== undefined, to: value });
  }
  return changes;
}
