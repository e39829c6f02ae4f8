import type { Principal } from '../controls/index.js';
import { type GateLimits, judge } from '../controls/index.js';
import { ValidationError } from '../shared/errors.js';
import { entryIssues, type FieldIssue } from '../shared/validation.js';
import { describeCorrection } from './correction-instruction.js';
import { BatchCorrectionSchema } from './schemas.js';

/** How a caller names a row in a refusal: `corrections[3]` for JSON, `row 4` for a CSV's fourth data row. */
export type RowNaming = 'json' | 'csv';

/** Every row of a batch parsed, or one refusal naming every bad row and field. */
export function validateBatch(
  limits: GateLimits,
  entries: readonly unknown[],
  naming: RowNaming,
  actor: Principal,
) {
  const issues: FieldIssue[] = [];
  const rows = entries.map((entry, index) => {
    const prefix = naming === 'json' ? `corrections[${index}]` : `row ${index + 1}`;
    const parsed = BatchCorrectionSchema.safeParse(entry);
    if (!parsed.success) {
      issues.push(...entryIssues(prefix, parsed.error));
      return undefined;
    }
    try {
      // The gate's maximum refuses the batch now on the row's own amount; the approval threshold, and the
      // amount of an item whose destination changes, are the worker's, per row (correction-service.ts).
      judge(limits, {
        ...describeCorrection(parsed.data, undefined, actor, actor),
        amount: { kobo: parsed.data.amount, source: { from: 'request' }, path: `${prefix}.amount` },
      });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      issues.push(...error.issues);
    }
    return parsed.data;
  });
  if (issues.length > 0) {
    throw ValidationError.of(issues);
  }
  return rows.filter((row) => row !== undefined);
}
