/**
 * The daily statement (docs/statements.md): the provider's wallet records of a day reconciled against our payouts
 * both ways, stored as a report and its lines, read by the ops API and the CLI.
 */
export { toStatementCsv } from './csv.js';
export { dateIn, daysCovered, daysWindow, dayWindow, dueStatementDate, previousDate } from './day.js';
export { STATEMENT_MAX_PAGES, STATEMENT_PAGE_SIZE } from './day-reads.js';
export { type DayInput, type DayMatch, isRefundRecord, matchDay, payoutIdOfMarker } from './match.js';
export {
  FINDING_KINDS,
  isFinding,
  STATEMENT_LINE_KINDS,
  StatementDateSchema,
  type StatementLine,
  StatementLineKind,
  type StatementReport,
  type StatementRun,
  type Tally,
} from './model.js';
export { PayoutDays, type PayoutLister } from './payout-days.js';
export { PAYOUT_TOTALS_MAX, type PayoutTotals } from './payout-totals.js';
export {
  STATEMENT_UNIT_DEADLINE_MS,
  type StatementBudget,
  StatementService,
  type StatementServiceOptions,
} from './service.js';
export { LINE_WRITE_BATCH, StatementStore, statementKeys } from './store.js';
