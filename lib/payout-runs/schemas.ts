import { toKobo } from '../money.js';
import { BeneficiarySchema, NARRATION_MAX_LENGTH } from '../payouts/index.js';
import { clientText } from '../shared/text.js';
import * as z from '../shared/zod.js';

/** The most rows one run may hold. */
export const MAX_RUN_ROWS = 10_000;
/** The largest body `POST /payout-runs` accepts (10,000 rows of ~120 bytes fit). */
export const MAX_RUN_BODY_BYTES = 2 * 1024 * 1024;

/** The columns of a run file (CSV header or JSON row fields), with what each holds; docs/payout-runs.md. */
export const RUN_COLUMNS = {
  reference: 'required: your reference for the row, unique in the file (1-64 letters, digits, - _ . /)',
  amount: 'the amount in integer kobo (or amountNaira; exactly one of the two)',
  amountNaira: 'the amount in naira with at most two decimals, e.g. 1500.50',
  bankCode: 'required: the bank code, 3 to 6 digits',
  accountNumber: 'required: the 10-digit NUBAN account number',
  accountName: 'required: the account holder',
  narration: `required: the narration, at most ${NARRATION_MAX_LENGTH} characters`,
  scheduleAt: 'optional: when to pay it, an ISO 8601 instant with a zone, in the future',
} as const;
export const RUN_CSV_COLUMNS = {
  allowed: Object.keys(RUN_COLUMNS),
  required: ['reference', 'bankCode', 'accountNumber', 'accountName', 'narration'],
  numeric: ['amount'],
} as const;

const NAIRA_TEXT = /^\d{1,13}(\.\d{1,2})?$/;

/** A row as it arrives (CSV cells or JSON fields), validated; the amount in kobo, converted exactly. */
export const RunRowInputSchema = z.lazy(() =>
  z
    .strictObject({
      reference: z
        .string()
        .check(z.regex(/^[A-Za-z0-9_./-]{1,64}$/, 'must be 1-64 letters, digits, - _ . or /')),
      amount: z.optional(z.int().check(z.positive(), z.lte(Number.MAX_SAFE_INTEGER))),
      amountNaira: z.optional(
        z
          .union([z.string(), z.number()])
          .check(
            z.refine(
              (value) => NAIRA_TEXT.test(String(value)),
              'must be naira with at most two decimals, e.g. 1500.50',
            ),
          ),
      ),
      bankCode: z.string().check(z.regex(/^\d{3,6}$/, 'must be a bank code of 3 to 6 digits')),
      accountNumber: z.string().check(z.regex(/^\d{10}$/, 'must be a 10-digit NUBAN account number')),
      accountName: clientText({ max: 100 }),
      narration: clientText({ max: NARRATION_MAX_LENGTH }),
      scheduleAt: z.optional(z.iso.datetime({ offset: true })),
    })
    .check(
      z.superRefine((row, ctx) => {
        if ((row.amount === undefined) === (row.amountNaira === undefined)) {
          ctx.addIssue({
            code: 'custom',
            path: ['amount'],
            message: 'give exactly one of amount (kobo) and amountNaira',
            input: row,
          });
        }
      }),
    ),
);
export type RunRowInput = z.infer<typeof RunRowInputSchema>;

/**
 * The kobo of a validated row: `amount`, or `amountNaira` converted exactly by lib/money.ts (its text is at most
 * two decimals, so the conversion cannot round).
 */
export function rowKobo(row: RunRowInput): number {
  return row.amount ?? toKobo(Number(String(row.amountNaira)));
}

/** The JSON body of `POST /payout-runs`; each row is validated apart (`RunRowInputSchema`) to name every bad one. */
export const CreateRunJsonSchema = z.lazy(() =>
  z.strictObject({
    rows: z.array(z.unknown()).check(z.minLength(1), z.maxLength(MAX_RUN_ROWS)),
    acknowledgeDuplicates: z.optional(z.boolean()),
  }),
);

/** The beneficiary shape a row's payout carries (the same rules as `POST /payouts`). */
export { BeneficiarySchema };
