import { PayoutAutomationError } from '../shared/errors.js';

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
const COLUMNS = Object.keys(CORRECTION_CSV_COLUMNS);

export class CsvFormatError extends PayoutAutomationError {
  override readonly name = 'CsvFormatError';
  override readonly code = 'CSV_INVALID';
}

/**
 * Turns a correction CSV (header row, then one correction per row; empty cells are "leave as is") into
 * the entries of a batch. `amount` is integer kobo, as everywhere in this API. Values stay strings except
 * `amount`, so validation can name a bad cell.
 *
 * @example parseCorrectionsCsv('bulkPayoutItemId,accountNumber\nitem-1,0123456789\n')
 * // [{ bulkPayoutItemId: 'item-1', accountNumber: '0123456789' }]
 */
export function parseCorrectionsCsv(text: string): Record<string, unknown>[] {
  const rows = parseRows(text).filter((row) => row.some((cell) => cell.trim() !== ''));
  const [header, ...body] = rows;
  if (!header) throw new CsvFormatError('the CSV is empty; the first row must name the columns');
  const names = header.map((name) => name.trim());
  const unknown = names.filter((name) => !COLUMNS.includes(name));
  if (unknown.length > 0) {
    throw new CsvFormatError(`unknown column(s) ${unknown.join(', ')}; allowed: ${COLUMNS.join(', ')}`);
  }
  if (!names.includes('bulkPayoutItemId'))
    throw new CsvFormatError('the bulkPayoutItemId column is required');
  return body.map((row) => {
    const entry: Record<string, unknown> = {};
    names.forEach((name, column) => {
      const cell = (row[column] ?? '').trim();
      if (cell === '') return;
      entry[name] = name === 'amount' && /^-?\d+(\.\d+)?$/.test(cell) ? Number(cell) : cell;
    });
    return entry;
  });
}

/** RFC 4180 rows: commas, double-quoted cells with "" escapes, CRLF or LF line ends. */
function parseRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(cell);
      cell = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += char;
  }
  if (quoted) throw new CsvFormatError('a quoted cell is not closed');
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}
