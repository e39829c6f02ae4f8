import { formatNaira } from '../money.js';
import type { StatementLine, StatementReport } from './model.js';

const COLUMNS = [
  'date',
  'kind',
  'transaction_id',
  'payout_id',
  'refund_id',
  'attempt',
  'type',
  'category',
  'status',
  'amount_kobo',
  'amount_ngn',
  'charges_kobo',
  'expected_amount_kobo',
  'expected_charges_kobo',
  'destination',
  'created_at',
  'narration',
  'detail',
] as const;

/** A field as RFC 4180 writes it; a leading `=+-@` is prefixed with `'` so a spreadsheet never runs it. */
function field(value: string | number | undefined): string {
  if (value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One row per line of the day's report, amounts in kobo and in naira, for a spreadsheet. */
export function toStatementCsv(report: StatementReport, lines: readonly StatementLine[]): string {
  const rows = lines.map((line) =>
    [
      report.date,
      line.kind,
      line.transactionId,
      line.payoutId,
      line.refundId,
      line.attempt,
      line.type,
      line.category,
      line.status,
      line.amountKobo,
      formatNaira(line.amountKobo),
      line.chargesKobo,
      line.expectedAmountKobo,
      line.expectedChargesKobo,
      line.destination,
      line.createdAt,
      line.narration,
      line.detail,
    ]
      .map(field)
      .join(','),
  );
  return `${[COLUMNS.join(','), ...rows].join('\r\n')}\r\n`;
}
