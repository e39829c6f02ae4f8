import type { WalletTransaction } from '../provider/index.js';
import type { DayMatch } from './match.js';
import {
  isFinding,
  STATEMENT_LINE_KINDS,
  type StatementLine,
  type StatementLineKind,
  type StatementReport,
  type StatementRun,
  type Tally,
} from './model.js';
import type { PayoutTotals } from './payout-totals.js';

function emptyTally(): { count: number; amountKobo: number } {
  return { count: 0, amountKobo: 0 };
}

/** The report of a day from its match: tallies per kind, the provider's totals by type and status. */
export function reportOf(
  date: string,
  timeZone: string,
  window: { from: string; to: string },
  listed: { records: readonly WalletTransaction[]; pagesRead: number; complete: boolean },
  match: DayMatch,
  generatedAt: string,
  history: {
    payoutTotals?: PayoutTotals;
    movedToReview: readonly string[];
    runs: readonly StatementRun[];
  },
): StatementReport {
  const byKind = Object.fromEntries(STATEMENT_LINE_KINDS.map((kind) => [kind, emptyTally()])) as Record<
    StatementLineKind,
    { count: number; amountKobo: number }
  >;
  for (const line of match.lines) {
    byKind[line.kind].count++;
    byKind[line.kind].amountKobo += line.amountKobo;
  }
  const byType: Record<string, Tally & { chargesKobo: number }> = {};
  const byStatus: Record<string, { count: number; amountKobo: number }> = {};
  const lineOf = new Map<string, StatementLine>();
  for (const line of match.lines) if (line.transactionId) lineOf.set(line.transactionId, line);
  for (const record of listed.records) {
    const line = lineOf.get(record.id);
    const amountKobo = line?.amountKobo ?? 0;
    const type = byType[record.type] ?? { count: 0, amountKobo: 0, chargesKobo: 0 };
    byType[record.type] = {
      count: type.count + 1,
      amountKobo: type.amountKobo + amountKobo,
      chargesKobo: type.chargesKobo + (line?.chargesKobo ?? 0),
    };
    const status = byStatus[record.status] ?? emptyTally();
    byStatus[record.status] = { count: status.count + 1, amountKobo: status.amountKobo + amountKobo };
  }
  return {
    date,
    timeZone,
    window,
    completeness: listed.complete ? 'complete' : 'incomplete',
    pagesRead: listed.pagesRead,
    byKind,
    findings: match.lines.filter((line) => isFinding(line.kind)).length,
    providerTotals: { byType, byStatus },
    ...(history.payoutTotals && { payoutTotals: history.payoutTotals }),
    movedToReview: history.movedToReview,
    generatedAt,
    runs: history.runs,
  };
}
