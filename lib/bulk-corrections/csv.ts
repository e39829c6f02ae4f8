import { CsvFormatError, parseCsvRecords } from '../shared/csv.js';

export { CsvFormatError };

/**
 * The columns a correction CSV may have, with what each holds; the first row names them, in any order. The
 * OpenAPI document lists them from here.
 */
export const CORRECTION_CSV_COLUMNS = {
  bulkPayoutItemId: "required: the provider's id of the bulk payout item",
  accountNumber: 'the 10-digit account number to pay',
  bankCode: 'the bank code of that account',
  amount: 'the amount in integer kobo',
  phoneNumber: "the beneficiary's phone number",
  narration: 'the narration',
} as const;
const COLUMNS = {
  allowed: Object.keys(CORRECTION_CSV_COLUMNS),
  required: ['bulkPayoutItemId'],
  numeric: ['amount'],
} as const;

/**
 * Turns a correction CSV (header row, then one correction per row; empty cells are "leave as is") into
 * the entries of a batch. `amount` is integer kobo, as everywhere in this API. Values stay strings except
 * `amount`, so validation can name a bad cell. The header rules (unknown, repeated, missing columns) are the
 * shared parser's (lib/shared/csv.ts).
 *
 * @example parseCorrectionsCsv('bulkPayoutItemId,accountNumber\nitem-1,0123456789\n')
 * // [{ bulkPayoutItemId: 'item-1', accountNumber: '0123456789' }]
 */
export function parseCorrectionsCsv(text: string): Record<string, unknown>[] {
  return parseCsvRecords(text, COLUMNS);
}
