import { formatNaira } from '../../money.js';
import { debitedAccountOf, type Payout } from '../../payouts/index.js';
import { csvCell } from '../../shared/csv.js';
import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import { daysCovered, StatementDateSchema } from '../../statements/index.js';
import { parseQuery } from '../request.js';
import { type Answers, type Route, type RouteRequest, reply, route } from '../router.js';
import { addReversedRangeIssues, PageCursorSchema } from '../schemas.js';

const { id: ID, reference: REFERENCE, word: WORD, name: NAME, text: TEXT, instant: INSTANT } = FIELD_MAXIMA;

/** The longest range of days one export covers, both ends counted: a month of 31 days. */
export const PAYOUT_EXPORT_MAX_DAYS = 31;

/**
 * Payouts in one part of the export. With every cell at its maximum a part stays below Lambda's 6 MB answer
 * (test/infra/api-answer-sizes.test.ts); a day of any size is so many parts.
 */
export const PAYOUT_EXPORT_PAGE_ROWS = 500;

/** The debited account as one cell: `main_wallet`, `wallet/<id>` or `child_account/<id>`. */
function debitedAccount(payout: Payout): string {
  const debits = debitedAccountOf(payout.instruction);
  if (debits.kind === 'wallet') return `wallet/${debits.walletId}`;
  if (debits.kind === 'child_account') return `child_account/${debits.childAccountId}`;
  return 'main_wallet';
}

const beneficiaryOf = (payout: Payout) =>
  'beneficiary' in payout.instruction ? payout.instruction.beneficiary : undefined;

/** The wallet a wallet transfer or credit pays into. */
function destinationWallet(payout: Payout): string | undefined {
  const instruction = payout.instruction;
  if (instruction.type === 'wallet_transfer') return instruction.destinationWalletId;
  if (instruction.type === 'wallet_credit') return instruction.walletId;
  return undefined;
}

interface ExportColumn {
  /** The longest cell, in characters (clipped to it: `csvCell`). */
  readonly max: number;
  /** What the column holds, for the OpenAPI document (docs/api.md lists the same). */
  readonly means: string;
  readonly of: (payout: Payout) => string | number | undefined;
}

/**
 * The export's columns in order: what a payout's own answer shows (`GET /payouts/{id}`), never more. The
 * beneficiary's account number is cut to its last four digits, for a file that is mailed and kept.
 */
export const PAYOUT_EXPORT_COLUMNS = {
  id: { max: WORD, means: 'the payout id', of: (p) => p.id },
  created_at: { max: INSTANT, means: 'when it was created (UTC)', of: (p) => p.createdAt },
  type: { max: WORD, means: 'bank_transfer, wallet_transfer, …', of: (p) => p.instruction.type },
  origin: {
    max: WORD,
    means: 'where it came from: api, event, schedule, settlement, run',
    of: (p) => p.origin,
  },
  source_ref: {
    max: REFERENCE,
    means: 'the recurring payout or settlement it came from',
    of: (p) => p.sourceRef,
  },
  status: { max: WORD, means: 'its status when exported', of: (p) => p.status },
  amount_kobo: { max: 17, means: 'the amount in kobo', of: (p) => p.amountKobo },
  amount_ngn: { max: 32, means: 'the same in naira (NGN 2,500.00)', of: (p) => formatNaira(p.amountKobo) },
  charges_kobo: {
    max: 17,
    means: "the provider's charges in kobo, once paid",
    of: (p) => p.receipt?.chargesKobo,
  },
  debited_account: {
    max: WORD + 16,
    means: 'the account debited: main_wallet, wallet/<id> or child_account/<id>',
    of: debitedAccount,
  },
  destination_bank_code: {
    max: WORD,
    means: "the beneficiary's bank code (bank transfers)",
    of: (p) => beneficiaryOf(p)?.bankCode,
  },
  destination_account_last4: {
    max: 4,
    means: "the last four digits of the beneficiary's account number (bank transfers)",
    of: (p) => beneficiaryOf(p)?.accountNumber.slice(-4),
  },
  destination_name: {
    max: NAME,
    means: "the beneficiary's account name (bank transfers)",
    of: (p) => beneficiaryOf(p)?.accountName,
  },
  destination_wallet: {
    max: WORD,
    means: 'the wallet paid into (wallet_transfer, wallet_credit)',
    of: destinationWallet,
  },
  narration: { max: NAME, means: 'the narration', of: (p) => p.narration },
  provider_transaction_id: {
    max: REFERENCE,
    means: "the provider's transaction id, once paid",
    of: (p) => p.receipt?.transactionId,
  },
  provider_reference: {
    max: REFERENCE,
    means: "the provider's reference, once paid",
    of: (p) => p.receipt?.reference,
  },
  paid_at: { max: WORD, means: 'when the provider paid it', of: (p) => p.receipt?.paidAt },
  failure: {
    max: TEXT,
    means: 'code: message, for a failed payout',
    of: (p) => p.failure && `${p.failure.code}: ${p.failure.message}`,
  },
  requested_by: { max: ID, means: 'who asked for it', of: (p) => p.requestedBy.id },
  approved_by: { max: ID, means: 'the second person, when one approved it', of: (p) => p.approvedBy?.id },
  updated_at: { max: INSTANT, means: 'its last change (UTC)', of: (p) => p.updatedAt },
} as const satisfies Record<string, ExportColumn>;

const COLUMNS = Object.entries(PAYOUT_EXPORT_COLUMNS) as [string, ExportColumn][];

/** One part of the export: the header row, then one row per payout, CRLF line ends. */
export function payoutExportCsv(payouts: readonly Payout[]): string {
  const rows = [
    COLUMNS.map(([name]) => name).join(','),
    ...payouts.map((payout) => COLUMNS.map(([, column]) => csvCell(column.of(payout), column.max)).join(',')),
  ];
  return `${rows.join('\r\n')}\r\n`;
}

const day = (description: string) => StatementDateSchema.check(z.describe(description));

export const PayoutExportQuerySchema = z.lazy(() =>
  z
    .strictObject({
      from: day("the first day, YYYY-MM-DD, in the statement's zone (STATEMENT_TIME_ZONE, Africa/Lagos)"),
      to: day(`the last day, included; at most ${PAYOUT_EXPORT_MAX_DAYS} days from from, both counted`),
      cursor: z.optional(PageCursorSchema),
    })
    .check(
      z.superRefine((range, ctx) => {
        if (range.from > range.to) addReversedRangeIssues(ctx, range);
        else if (daysCovered(range.from, range.to) > PAYOUT_EXPORT_MAX_DAYS) {
          ctx.addIssue({
            code: 'custom',
            path: ['to'],
            message: `must be at most ${PAYOUT_EXPORT_MAX_DAYS} days from from, both counted`,
            input: range.to,
          });
        }
      }),
    ),
);

/**
 * GET /payouts/export.csv?from=&to=: every payout created from the start of `from` to the end of `to` in the
 * statement's zone, newest first, PAYOUT_EXPORT_PAGE_ROWS a part, read from the month index (never a scan). A
 * part with more to come carries `Link: <…?cursor=…>; rel="next"`; the CLI's `payouts export` follows it.
 */
async function exportPayouts(request: RouteRequest<'payoutDays'>) {
  const { from, to, cursor } = parseQuery(request.event, PayoutExportQuerySchema);
  const page = await request.ctx.payoutDays.page({
    from,
    to,
    limit: PAYOUT_EXPORT_PAGE_ROWS,
    ...(cursor !== undefined && { cursor }),
  });
  const next = page.nextCursor && new URLSearchParams({ from, to, cursor: page.nextCursor });
  return reply(200, payoutExportCsv(page.items), {
    'content-disposition': `attachment; filename="payouts-${from}-${to}.csv"`,
    ...(next && { link: `</payouts/export.csv?${next}>; rel="next"` }),
  });
}

const PayoutExportCsvSchema = z
  .string()
  .check(
    z.describe(
      `RFC 4180 CSV with CRLF line ends, newest payout first; columns: ${COLUMNS.map(
        ([name, column]) => `${name} (${column.means})`,
      ).join('; ')} (docs/api.md, "Exporting payouts")`,
    ),
  );

export const payoutExportRoutes: readonly Route<Answers, 'payoutDays'>[] = [
  route({
    method: 'GET',
    path: '/payouts/export.csv',
    operationId: 'exportPayouts',
    summary: `Every payout created from the first day to the last (YYYY-MM-DD in the statement's zone, at most ${PAYOUT_EXPORT_MAX_DAYS} days), newest first, as CSV, ${PAYOUT_EXPORT_PAGE_ROWS} rows per part; a \`Link\` header with rel="next" names the next part`,
    request: { query: PayoutExportQuerySchema },
    cli: {
      words: ['payouts', 'export'],
      summary:
        'every payout created --from DAY --to DAY (YYYY-MM-DD, Lagos; at most 31 days) as one CSV (fetched in parts of 500; --out FILE)',
      query: ['from', 'to'],
      parts: true,
    },
    role: 'viewer',
    responses: {
      200: {
        description: `the payouts created in the range, ${PAYOUT_EXPORT_PAGE_ROWS} a part`,
        schema: PayoutExportCsvSchema,
        mediaType: 'text/csv',
      },
    },
    problems: ['validation'],
    handler: exportPayouts,
  }),
];
