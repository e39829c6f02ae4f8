import { FIELD_MAXIMA } from '../shared/field-limits.js';
import { clientText, firstUnprintable, issuedId } from '../shared/text.js';
import * as z from '../shared/zod.js';

/**
 * The request that creates a payout, shared by the ops API (`POST /payouts`) and the `Payout Requested` event.
 * Unknown fields are refused; the OpenAPI document is generated from these schemas.
 */

export const NARRATION_MAX_LENGTH = 60;

export const METADATA_MAX_KEYS = FIELD_MAXIMA.metadataKeys;
/** The largest metadata object accepted, as JSON (UTF-8 bytes). */
export const METADATA_MAX_BYTES = FIELD_MAXIMA.metadataBytes;
/** Keys the engine writes into the provider's metadata itself; a client's would be silently replaced. */
const RESERVED_METADATA_KEYS = new Set(['payoutId', 'idempotencyKey']);
/** `constructor`, `toString`, `__proto__`, …: a key that names a member of every object misleads code that reads it. */
const PROTOTYPE_MEMBERS = new Set(Object.getOwnPropertyNames(Object.prototype));

/** The smallest magnitude other than 0 DynamoDB stores as a number (it refuses `1e-131` as an underflow). */
const DYNAMODB_SMALLEST_NUMBER = 1e-130;
const METADATA_NUMBER_RULE =
  `must be a number from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}, ` +
  `and 0 or at least ${DYNAMODB_SMALLEST_NUMBER} away from it`;

/**
 * A metadata number the payout's item can hold exactly: DynamoDB's marshaller refuses a number beyond
 * ±Number.MAX_SAFE_INTEGER (past it a double skips integers: a 20-digit bank reference arrives already changed), and
 * DynamoDB one closer to 0 than 1e-130.
 * Accepted, either failed the write after validation: a 500 on `POST /payouts`, an event retried onto its queue.
 * (zod refuses NaN and the infinities for any number.)
 */
function isStorableNumber(value: number): boolean {
  const magnitude = Math.abs(value);
  return magnitude <= Number.MAX_SAFE_INTEGER && (magnitude === 0 || magnitude >= DYNAMODB_SMALLEST_NUMBER);
}

// Built on first use (z.lazy, each builder runs once), not when a function loads this module: the sweep and the
// settlement functions load it for a schema they may never parse with (a stored rule's template), and building
// the six payout variants at load was most of their import's zod work. The bank account is built on its own: a
// settlement parses its destination with it and never a payout request, and the variants cost ~1 ms to build.
let builtBeneficiary: ReturnType<typeof buildBeneficiary> | undefined;
const beneficiarySchema = () => {
  builtBeneficiary ??= buildBeneficiary();
  return builtBeneficiary;
};
let built: ReturnType<typeof build> | undefined;
const schemas = () => {
  built ??= build();
  return built;
};

function buildBeneficiary() {
  return z.strictObject({
    bankCode: z.string().check(z.regex(/^\d{3,6}$/, 'must be a bank code of 3 to 6 digits')),
    accountNumber: z.string().check(z.regex(/^\d{10}$/, 'must be a 10-digit NUBAN account number')),
    accountName: clientText({ max: 100 }),
  });
}

function build() {
  const beneficiary = beneficiarySchema();
  const walletId = issuedId();

  /** A metadata key: a plain name, never a member of Object.prototype nor one the engine reserves. */
  const metadataKey = z.string().check(
    z.regex(
      /^[A-Za-z][A-Za-z0-9_.-]{0,39}$/,
      'must be a plain name: a letter, then up to 39 letters, digits, _ . or -',
    ),
    z.refine((key) => !PROTOTYPE_MEMBERS.has(key), 'must not be the name of a built-in object member'),
    z.refine((key) => !RESERVED_METADATA_KEYS.has(key), 'is reserved: the service sets it itself'),
  );

  /** A metadata value: printable text (the payout marker is allowed: a value may name another payout), or a scalar. */
  const metadataValue = z.union([
    z.string().check(
      z.maxLength(FIELD_MAXIMA.metadataValue, `must be at most ${FIELD_MAXIMA.metadataValue} characters`),
      z.refine(
        (text) => firstUnprintable(text) === undefined,
        'must be printable text (no control, bidirectional, zero-width or non-standard space characters)',
      ),
    ),
    // A refinement: the rule (a range with a gap around 0) is more than a minimum and a maximum.
    z.number().check(z.refine(isStorableNumber, METADATA_NUMBER_RULE)),
    z.boolean(),
    z.null(),
  ]);

  /** Free-form labels a client attaches to a payout, passed to the provider with it: at most 10 keys, 2 KB. */
  const metadata = z.record(metadataKey, metadataValue).check(
    z.describe(
      `at most ${METADATA_MAX_KEYS} keys and ${METADATA_MAX_BYTES} bytes as JSON; keys are plain names (a letter, then ` +
        'letters, digits, _ . or -), never an Object.prototype member such as constructor, nor payoutId or ' +
        'idempotencyKey, which the service sets; values are printable strings of at most 200 characters, numbers, ' +
        'booleans or null',
    ),
    z.refine(
      (value) => Object.keys(value).length <= METADATA_MAX_KEYS,
      `must have at most ${METADATA_MAX_KEYS} keys`,
    ),
    z.refine(
      (value) => Buffer.byteLength(JSON.stringify(value)) <= METADATA_MAX_BYTES,
      `must be at most ${METADATA_MAX_BYTES} bytes as JSON`,
    ),
  );

  const common = {
    /** Integer kobo, at least 1. */
    amount: z.int().check(z.positive(), z.lte(Number.MAX_SAFE_INTEGER)),
    currency: z.literal('NGN'),
    /** Printable text, NFC; never a payout marker `po_<id>` (the service appends the payout's own). */
    narration: clientText({ max: NARRATION_MAX_LENGTH }),
    metadata: z.optional(metadata),
    /** ISO 8601 instant with a zone; must be in the future. */
    scheduleAt: z.optional(z.iso.datetime({ offset: true })),
  };

  const variants = [
    z.strictObject({ type: z.literal('bank_transfer'), ...common, beneficiary }),
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
      beneficiary,
    }),
  ] as const;
  return { variants };
}

/** A bank account as a payout names it. */
export const BeneficiarySchema = z.lazy(beneficiarySchema);

/** The variants of `CreatePayoutRequestSchema`, one per payout type (the recurring payout's request extends them). */
export const payoutRequestVariants = () => schemas().variants;

export const CreatePayoutRequestSchema = z.lazy(() =>
  z.discriminatedUnion('type', [...payoutRequestVariants()]),
);
export type CreatePayoutRequest = z.infer<typeof CreatePayoutRequestSchema>;

/** Idempotency keys as callers send them. */
export const IdempotencyKeySchema = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(255),
    z.regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  );
