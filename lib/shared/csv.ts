import { errorKind, type FieldIssue } from './errors.js';
import { clipText } from './field-limits.js';

/**
 * A CSV upload that cannot be read as rows. `issues` name what is wrong: `header` for the first row's column
 * names (each issue names its column), `(body)` for the text as a whole (empty, an unclosed quote).
 */
export class CsvFormatError extends /* @__PURE__ */ errorKind('CsvFormatError', 'CSV_INVALID') {
  readonly issues: readonly FieldIssue[];

  constructor(message: string, issues: readonly FieldIssue[] = [{ path: '(body)', message }]) {
    super(message);
    this.issues = issues;
  }
}

/** The columns an upload may have: the names allowed, those required, and those read as numbers. */
export interface CsvColumns {
  readonly allowed: readonly string[];
  readonly required: readonly string[];
  /** Cells of these columns that look like a decimal number are given as numbers, so validation names them. */
  readonly numeric?: readonly string[];
}

/** A column name as a message quotes it: clipped, in JSON quotes so blanks and invisible characters show. */
const quoted = (name: string) => JSON.stringify(clipText(name, 40));

/**
 * The header's problems, one per bad column: a name that is empty, unknown (names are case-sensitive; a name that
 * differs only in case says which it means) or repeated, then each required column missing. A repeated column is
 * refused rather than one of its cells silently winning: `reference,amount,amount` would otherwise pay whichever
 * amount came last.
 */
function headerIssues(names: readonly string[], columns: CsvColumns): FieldIssue[] {
  const { allowed } = columns;
  const issues: FieldIssue[] = [];
  const seen = new Map<string, number>();
  names.forEach((name, index) => {
    const column = index + 1;
    if (name === '') {
      issues.push({
        path: 'header',
        message: `column ${column} has no name; allowed: ${allowed.join(', ')}`,
      });
      return;
    }
    if (!allowed.includes(name)) {
      const meant = allowed.find((known) => known.toLowerCase() === name.toLowerCase());
      issues.push({
        path: 'header',
        message: meant
          ? `unknown column ${quoted(name)} (column ${column}): names are case-sensitive, did you mean ${meant}?`
          : `unknown column ${quoted(name)} (column ${column}); allowed: ${allowed.join(', ')}`,
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
  if (issues.length === 0) {
    for (const name of columns.required) {
      if (!seen.has(name)) issues.push({ path: 'header', message: `the ${name} column is required` });
    }
  }
  return issues;
}

/**
 * Turns a CSV upload (header row, then one record per row; empty cells are left out) into records by column name.
 * Values stay strings except the `numeric` columns' decimal-looking cells, so validation can name a bad cell.
 * Rows whose cells are all blank are skipped.
 *
 * @throws CsvFormatError naming each bad header column, or the body when it is empty or a quote is not closed
 * @example parseCsvRecords('reference,amount\nr-1,5000\n', { allowed: ['reference', 'amount'], required: ['reference'], numeric: ['amount'] })
 * // [{ reference: 'r-1', amount: 5000 }]
 */
export function parseCsvRecords(text: string, columns: CsvColumns): Record<string, unknown>[] {
  // A spreadsheet's byte order mark is not part of the first column's name.
  const rows = parseCsvRows(text.startsWith('\uFEFF') ? text.slice(1) : text).filter((row) =>
    row.some((cell) => cell.trim() !== ''),
  );
  const [header, ...body] = rows;
  if (!header) throw new CsvFormatError('the CSV is empty; the first row must name the columns');
  // Blanks around a name are a spreadsheet's padding, not part of it.
  const names = header.map((name) => name.trim());
  const issues = headerIssues(names, columns);
  if (issues.length > 0) {
    throw new CsvFormatError(issues.map((issue) => issue.message).join('; '), issues);
  }
  const numeric = new Set(columns.numeric ?? []);
  return body.map((row) => {
    const entry: Record<string, unknown> = {};
    names.forEach((name, column) => {
      const cell = (row[column] ?? '').trim();
      if (cell === '') return;
      entry[name] = numeric.has(name) && /^-?\d+(\.\d+)?$/.test(cell) ? Number(cell) : cell;
    });
    return entry;
  });
}

/**
 * RFC 4180 rows: commas, double-quoted cells with "" escapes, CRLF or LF line ends.
 *
 * @throws CsvFormatError when a quoted cell is not closed
 */
export function parseCsvRows(text: string): string[][] {
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

/**
 * One cell of a CSV download: clipped to `max` characters, control characters and lone surrogates replaced by
 * U+FFFD (no place in a cell; JSON escapes each in six bytes), quoted when needed, and a leading =, +, - or @
 * prefixed with `'` so a spreadsheet never runs the cell as a formula. Empty for undefined or null.
 */
export function csvCell(value: unknown, max: number): string {
  if (value === undefined || value === null) return '';
  const text = clipText(String(value), max);
  const safe = /^[=+\-@]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
