import { type FieldIssue, PayoutAutomationError } from '../shared/errors.js';
import { clipText } from '../shared/field-limits.js';

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

/**
 * A correction CSV that cannot be read as corrections. `issues` name what is wrong: `header` for the first row's
 * column names (each issue names its column), `(body)` for the text as a whole (empty, an unclosed quote).
 */
export class CsvFormatError extends PayoutAutomationError {
  override readonly name = 'CsvFormatError';
  override readonly code = 'CSV_INVALID';
  readonly issues: readonly FieldIssue[];

  constructor(message: string, issues: readonly FieldIssue[] = [{ path: '(body)', message }]) {
    super(message);
    this.issues = issues;
  }
}

/** A column name as a message quotes it: clipped, in JSON quotes so blanks and invisible characters show. */
const quoted = (name: string) => JSON.stringify(clipText(name, 40));

/**
 * The header's problems, one per bad column: a name that is empty, unknown (names are case-sensitive; a name that
 * differs only in case says which it means) or repeated. A repeated column is refused rather than one of its
 * cells silently winning: `bulkPayoutItemId,amount,amount` would otherwise pay whichever amount came last.
 */
function headerIssues(names: readonly string[]): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const seen = new Map<string, number>();
  names.forEach((name, index) => {
    const column = index + 1;
    if (name === '') {
      issues.push({
        path: 'header',
        message: `column ${column} has no name; allowed: ${COLUMNS.join(', ')}`,
      });
      return;
    }
    if (!COLUMNS.includes(name)) {
      const meant = COLUMNS.find((known) => known.toLowerCase() === name.toLowerCase());
      issues.push({
        path: 'header',
        message: meant
          ? `unknown column ${quoted(name)} (column ${column}): names are case-sensitive, did you mean ${meant}?`
          : `unknown column ${quoted(name)} (column ${column}); allowed: ${COLUMNS.join(', ')}`,
      });
      return;
    }
    const first = seen.get(name);
    if (first !== undefined) {
      issues.push({
        path: 'header',
        message: `repeated column ${name} (columns ${first} and ${column}): each column may appear once`,
      });
      return;
    }
    seen.set(name, column);
  });
  if (issues.length === 0 && !seen.has('bulkPayoutItemId')) {
    issues.push({ path: 'header', message: 'the bulkPayoutItemId column is required' });
  }
  return issues;
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
  // A spreadsheet's byte order mark is not part of the first column's name.
  const rows = parseRows(text.startsWith('\uFEFF') ? text.slice(1) : text).filter((row) =>
    row.some((cell) => cell.trim() !== ''),
  );
  const [header, ...body] = rows;
  if (!header) throw new CsvFormatError('the CSV is empty; the first row must name the columns');
  // Blanks around a name are a spreadsheet's padding, not part of it.
  const names = header.map((name) => name.trim());
  const issues = headerIssues(names);
  if (issues.length > 0) {
    throw new CsvFormatError(issues.map((issue) => issue.message).join('; '), issues);
  }
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
