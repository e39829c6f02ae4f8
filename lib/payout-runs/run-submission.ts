import type { Principal } from '../controls/index.js';
import { type GateLimits, judge } from '../controls/index.js';
import { errorKind, ValidationError } from '../shared/errors.js';
import { entryIssues, type FieldIssue } from '../shared/validation.js';
import { type LargestRow, type PayoutRun, type RunRow, RunState, type RunWarning } from './model.js';
import { rowInstruction, runInstruction } from './run-gate.js';
import { RunRowInputSchema, rowKobo } from './schemas.js';

/**
 * A run's file checked before anything is stored: each row through zod and the gate's maximum, duplicate lines
 * and earlier runs as warnings to acknowledge, and the run to store as the gate judges it (run-service.ts).
 */

const LARGEST_SHOWN = 5;

/** A run's duplicate lines or an earlier run of the same rows, not acknowledged: nothing stored. */
export class RunWarningsError extends /* @__PURE__ */ errorKind(
  'RunWarningsError',
  'RUN_WARNINGS_UNACKNOWLEDGED',
) {
  constructor(readonly warnings: readonly RunWarning[]) {
    super(
      `the run has ${warnings.length} warning(s) to acknowledge with acknowledgeDuplicates: true (nothing was stored): ${warnings
        .map((warning) => warning.message)
        .join('; ')}`,
    );
  }
}

/** Every row through zod and the gate's maximum; every problem named (`rows[3].accountNumber` / `row 4.accountNumber`). */
export function validateRunRows(
  limits: GateLimits,
  entries: readonly unknown[],
  source: 'csv' | 'json',
  actor: Principal,
  now: Date,
): { rows: Omit<RunRow, 'runId'>[]; firstHeld: number | undefined } {
  let firstHeld: number | undefined;
  const issues: FieldIssue[] = [];
  const prefixOf = (index: number) => (source === 'json' ? `rows[${index}]` : `row ${index + 1}`);
  const firstOfReference = new Map<string, number>();
  const rows = entries.map((entry, index) => {
    const prefix = prefixOf(index);
    const parsed = RunRowInputSchema.safeParse(entry);
    if (!parsed.success) {
      issues.push(...entryIssues(prefix, parsed.error));
      return undefined;
    }
    const input = parsed.data;
    const amountPath = `${prefix}.${input.amount !== undefined ? 'amount' : 'amountNaira'}`;
    const amountKobo = rowKobo(input);
    if (amountKobo <= 0) {
      issues.push({ path: amountPath, message: 'must be more than 0' });
      return undefined;
    }
    const first = firstOfReference.get(input.reference);
    if (first !== undefined) {
      issues.push({
        path: `${prefix}.reference`,
        message: `repeats the reference of ${prefixOf(first)}: each row's reference must be unique`,
      });
    } else firstOfReference.set(input.reference, index);
    if (input.scheduleAt && new Date(input.scheduleAt).getTime() <= now.getTime()) {
      issues.push({ path: `${prefix}.scheduleAt`, message: 'must be in the future' });
    }
    const row: Omit<RunRow, 'runId'> = {
      index,
      reference: input.reference,
      amountKobo,
      beneficiary: {
        bankCode: input.bankCode,
        accountNumber: input.accountNumber,
        accountName: input.accountName,
      },
      narration: input.narration,
      ...(input.scheduleAt && { scheduleAt: new Date(input.scheduleAt).toISOString() }),
    };
    try {
      // The per-payout maximum refuses the file now, naming the row; a row at the threshold holds the run.
      const { approvalRequired } = judge(limits, {
        ...rowInstruction(row, actor),
        amount: { kobo: amountKobo, source: { from: 'request' }, path: amountPath },
      });
      if (approvalRequired !== undefined && firstHeld === undefined) firstHeld = index;
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      issues.push(...error.issues);
    }
    return row;
  });
  if (issues.length > 0) throw ValidationError.of(issues);
  return { rows: rows.filter((row): row is Omit<RunRow, 'runId'> => row !== undefined), firstHeld };
}

/** The run to store, judged by the gate: waiting for approval when its total or a row reaches the threshold. */
export function newRun(
  limits: GateLimits,
  input: {
    readonly runId: string;
    readonly now: Date;
    readonly valid: readonly Omit<RunRow, 'runId'>[];
    readonly input: {
      readonly source: 'csv' | 'json';
      readonly fileSha256: string;
      readonly actor: Principal;
    };
    readonly contentFingerprint: string;
    readonly lines: readonly RunWarning[];
    readonly earlier: readonly string[];
    readonly firstHeld: number | undefined;
  },
): PayoutRun {
  const { runId, valid, lines, earlier, firstHeld } = input;
  const { source, fileSha256, actor } = input.input;
  const at = input.now.toISOString();
  const totalKobo = valid.reduce((sum, row) => sum + row.amountKobo, 0);
  const judgement = judge(limits, runInstruction(totalKobo, actor));
  const approvalReason =
    judgement.approvalRequired !== undefined
      ? `the run's total ${judgement.approvalRequired}`
      : firstHeld !== undefined
        ? `row ${firstHeld + 1} is at or above the approval threshold`
        : undefined;
  return {
    runId,
    state: approvalReason ? RunState.PendingApproval : RunState.Materialising,
    count: valid.length,
    totalKobo,
    largestRows: largestRows(valid),
    fileSha256,
    contentFingerprint: input.contentFingerprint,
    source,
    requestedBy: actor,
    createdAt: at,
    updatedAt: at,
    ...(approvalReason && { approvalReason }),
    materialised: 0,
    ...((lines.length > 0 || earlier.length > 0) && {
      acknowledged: { duplicateLines: lines.length, duplicateRunIds: [...earlier] },
    }),
  };
}

/** Lines paying the same account the same amount, each group named once. */
export function duplicateLines(rows: readonly Omit<RunRow, 'runId'>[], source: 'csv' | 'json'): RunWarning[] {
  const groups = new Map<string, number[]>();
  for (const row of rows) {
    const key = `${row.beneficiary.bankCode}/${row.beneficiary.accountNumber}/${row.amountKobo}`;
    groups.set(key, [...(groups.get(key) ?? []), row.index + 1]);
  }
  const name = (n: number) => (source === 'json' ? `rows[${n - 1}]` : `row ${n}`);
  return [...groups.values()]
    .filter((lines) => lines.length > 1)
    .map((lines) => ({
      kind: 'duplicate_line' as const,
      rows: lines,
      message: `${lines.map(name).join(', ')} pay the same account the same amount`,
    }));
}

export function largestRows(rows: readonly Omit<RunRow, 'runId'>[]): LargestRow[] {
  return [...rows]
    .sort((a, b) => b.amountKobo - a.amountKobo || a.index - b.index)
    .slice(0, LARGEST_SHOWN)
    .map((row) => ({ row: row.index + 1, reference: row.reference, amountKobo: row.amountKobo }));
}
