import * as z from '../shared/zod.js';

/**
 * The request that creates a payout, shared by the ops API (`POST /payouts`) and the `Payout Requested` event.
 * Unknown fields are refused; the OpenAPI document is generated from these schemas.
 */

export const NARRATION_MAX_LENGTH = 60;

const walletId = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(64),
    z.regex(/^[A-Za-z0-9_-]+$/, 'must be an id of letters, digits, - or _'),
  );

export const BeneficiarySchema = z.strictObject({
  bankCode: z.string().check(z.regex(/^\d{3,6}$/, 'must be a bank code of 3 to 6 digits')),
  accountNumber: z.string().check(z.regex(/^\d{10}$/, 'must be a 10-digit NUBAN account number')),
  accountName: z.string().check(z.trim(), z.minLength(1), z.maxLength(100)),
});

export const MetadataSchema = z
  .record(
    z.string().check(z.minLength(1), z.maxLength(40)),
    z.union([z.string().check(z.maxLength(200)), z.number(), z.boolean(), z.null()]),
  )
  .check(z.refine((value) => Object.keys(value).length <= 10, 'must have at most 10 keys'));

const common = {
  /** Integer kobo, at least 1. */
  amount: z.int().check(z.positive(), z.lte(Number.MAX_SAFE_INTEGER)),
  currency: z.literal('NGN'),
  narration: z.string().check(z.trim(), z.minLength(1), z.maxLength(NARRATION_MAX_LENGTH)),
  metadata: z.optional(MetadataSchema),
  /** ISO 8601 instant with a zone; must be in the future. */
  scheduleAt: z.optional(z.iso.datetime({ offset: true })),
};

export const CreatePayoutRequestSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('bank_transfer'), ...common, beneficiary: BeneficiarySchema }),
  z.strictObject({
    type: z.literal('wallet_transfer'),
    ...common,
    sourceWalletId: walletId,
    destinationWalletId: walletId,
  }),
  z.strictObject({ type: z.literal('wallet_credit'), ...common, walletId }),
  z.strictObject({ type: z.literal('wallet_debit'), ...common, walletId }),
  z.strictObject({ type: z.literal('child_debit'), ...common, childAccountId: walletId }),
  z.strictObject({
    type: z.literal('child_bank_transfer'),
    ...common,
    childAccountId: walletId,
    beneficiary: BeneficiarySchema,
  }),
]);
export type CreatePayoutRequest = z.infer<typeof CreatePayoutRequestSchema>;

/** Idempotency keys as callers send them. */
export const IdempotencyKeySchema = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(255),
    z.regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  );
