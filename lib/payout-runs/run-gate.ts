import type { Principal } from '../controls/index.js';
import {
  type GateLimits,
  judgeApproval,
  MoneyEntryPoint,
  type MoneyInstruction,
  type PendingApproval,
} from '../controls/index.js';
import { describePayout, PayoutOrigin } from '../payouts/index.js';
import { ValidationError } from '../shared/errors.js';
import type { FieldIssue } from '../shared/validation.js';
import type { PayoutRun, RunRow } from './model.js';

/** A run and its rows as the gate weighs them, when submitted (run-submission.ts) and when approved. */

/** The run as the gate weighs it: its total, set by the request, out of the main wallet. */
export function runInstruction(totalKobo: number, releasedBy: Principal): MoneyInstruction {
  return {
    entryPoint: MoneyEntryPoint.PayoutRun,
    debits: { kind: 'main_wallet' },
    amount: { kobo: totalKobo, source: { from: 'request' }, path: 'total', isTotal: true },
    releasedBy,
  };
}

/** A row as the gate weighs it: the bank transfer its payout will be. */
export function rowInstruction(
  row: Pick<RunRow, 'amountKobo' | 'beneficiary'>,
  releasedBy: Principal,
): MoneyInstruction {
  return describePayout(
    {
      instruction: { type: 'bank_transfer', beneficiary: row.beneficiary },
      amountKobo: row.amountKobo,
      origin: PayoutOrigin.Run,
    },
    releasedBy,
  );
}

/**
 * The gate again on approval, with the limits in force now: the total decides whether two approvals are needed
 * (and the approver's limit); each row only the maximum. Whether this approval releases the run.
 *
 * @throws ApprovalForbiddenError for a total above the approver's limit, or the first approver again
 * @throws ValidationError naming each row the limits in force refuse
 */
export async function judgeRunApproval(
  limits: GateLimits,
  run: PayoutRun,
  approval: PendingApproval,
  allRows: () => Promise<readonly RunRow[]>,
): Promise<boolean> {
  const { approver, what } = approval;
  const { releases } = judgeApproval(limits, runInstruction(run.totalKobo, approver), approval);
  const issues: FieldIssue[] = [];
  for (const row of await allRows()) {
    try {
      judgeApproval(
        limits,
        {
          ...rowInstruction(row, approver),
          amount: { kobo: row.amountKobo, source: { from: 'request' }, path: `rows[${row.index}].amount` },
        },
        {
          ...approval,
          what: `${what} row ${row.index + 1} (${row.amountKobo} kobo)`,
          firstApproval: undefined,
        },
      );
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      issues.push(...error.issues);
    }
  }
  if (issues.length > 0) throw ValidationError.of(issues);
  return releases;
}
