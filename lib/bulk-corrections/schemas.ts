import { clientText, issuedId } from '../shared/text.js';
import * as z from '../shared/zod.js';

/** The largest batch of corrections one request may carry. */
export const MAX_BATCH_CORRECTIONS = 500;

export const BulkPayoutItemIdSchema = z.lazy(issuedId);

/** The fields ops may correct; checked here before anything is sent (CONTRACT.md "Bodies" and "Bulk payout items"). */
const correctionFields = () => ({
  accountNumber: z.optional(z.string().check(z.regex(/^\d{10}$/, 'must be a 10-digit NUBAN account number'))),
  bankCode: z.optional(z.string().check(z.regex(/^\d{3,6}$/, 'must be a bank code of 3 to 6 digits'))),
  /** Integer kobo; the provider takes whole naira here, so a multiple of 100. */
  amount: z.optional(
    z.int().check(
      z.positive(),
      z.lte(Number.MAX_SAFE_INTEGER),
      z.refine(
        (kobo) => kobo % 100 === 0,
        'must be a whole number of naira (a multiple of 100 kobo): the provider takes whole naira',
      ),
    ),
  ),
  phoneNumber: z.optional(
    z
      .string()
      .check(
        z.regex(
          /^(\+234|0)[789][01]\d{8}$/,
          'must be a Nigerian mobile number, e.g. 08031234567 or +2348031234567',
        ),
      ),
  ),
  narration: z.optional(clientText({ max: 100 })),
});

/** The fields a correction row may set (`amount` in kobo once validated). */
export const CORRECTION_FIELD_NAMES = [
  'accountNumber',
  'bankCode',
  'amount',
  'phoneNumber',
  'narration',
] as const;
const FIELD_NAMES = CORRECTION_FIELD_NAMES;
const atLeastOne = z.refine<Partial<Record<(typeof FIELD_NAMES)[number], unknown>>>(
  (value: Partial<Record<(typeof FIELD_NAMES)[number], unknown>>) =>
    FIELD_NAMES.some((field) => value[field] !== undefined),
  'must correct at least one of accountNumber, bankCode, amount, phoneNumber, narration',
);

/** Body of `PATCH /bulk-payout-items/{id}`. */
export const CorrectionFieldsSchema = z.lazy(() => z.strictObject(correctionFields()).check(atLeastOne));
export type CorrectionFields = z.infer<typeof CorrectionFieldsSchema>;

/** One entry of a batch: the item's id and its fields. */
export const BatchCorrectionSchema = z.lazy(() =>
  z.strictObject({ bulkPayoutItemId: BulkPayoutItemIdSchema, ...correctionFields() }).check(atLeastOne),
);

/**
 * Body of `POST /bulk-payout-items/corrections`, which is accepted as a job. Only the envelope is checked here;
 * the job then validates every entry against `BatchCorrectionSchema` and refuses the batch when any is bad.
 */
export const BatchEnvelopeSchema = z.lazy(() =>
  z.strictObject({
    corrections: z.array(z.unknown()).check(z.minLength(1), z.maxLength(MAX_BATCH_CORRECTIONS)),
  }),
);
