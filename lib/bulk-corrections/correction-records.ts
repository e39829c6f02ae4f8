import type { Principal } from '../controls/index.js';
import {
  ProviderInvalidRequestError,
  ProviderRejectedError,
  ProviderUnavailableError,
} from '../provider/index.js';
import { isConcurrentModificationOf } from '../shared/errors.js';
import type { CorrectionContext } from './correction-context.js';
import {
  type BulkItemState,
  CorrectionOutcome,
  type CorrectionResult,
  type FieldChange,
  type FieldValues,
  type ValidationRecord,
} from './model.js';

const STATE_WRITE_ATTEMPTS = 3;

/** Stores the provider's record; a concurrent correction of the same item is re-read and merged over. */
export async function writeState(
  ctx: Pick<CorrectionContext, 'store'>,
  id: string,
  read: BulkItemState | undefined,
  to: FieldValues,
  record: ValidationRecord,
  at: string,
  setBy: Principal,
): Promise<BulkItemState> {
  let before = read;
  for (let attempt = 1; ; attempt++) {
    // Who entered the amount the item now has: this correction's requester when it set one, else as before.
    const amountSetBy = to.amountKobo !== undefined ? setBy : before?.amountSetBy;
    const state: BulkItemState = {
      bulkPayoutItemId: id,
      record,
      values: { ...before?.values, ...to, accountNumber: record.accountNumber, bankCode: record.bankCode },
      ...(amountSetBy && { amountSetBy }),
      version: (before?.version ?? 0) + 1,
      updatedAt: at,
    };
    try {
      await ctx.store.putState(state, before?.version ?? 0);
      return state;
    } catch (error) {
      if (!isConcurrentModificationOf(error, 'bulk payout item') || attempt >= STATE_WRITE_ATTEMPTS)
        throw error;
      before = await ctx.store.get(id);
    }
  }
}

/**
 * Records a correction the provider refused (`provider_rejected`, audited), could not be reached for (`not_sent`),
 * or answered in a way that leaves its outcome unknown (`unknown`, audited): never a success.
 */
export async function recordFailure(
  ctx: Pick<CorrectionContext, 'store' | 'clock' | 'logger'>,
  id: string,
  by: { actor: Principal; approvedBy?: Principal },
  changes: readonly FieldChange[],
  error: unknown,
): Promise<CorrectionResult> {
  const at = ctx.clock.now().toISOString();
  if (error instanceof ProviderRejectedError || error instanceof ProviderInvalidRequestError) {
    const failure = {
      code: error.code,
      message:
        error instanceof ProviderRejectedError ? (error.providerMessage ?? error.message) : error.message,
      ...(error instanceof ProviderRejectedError && { status: error.status }),
    };
    const audit = {
      bulkPayoutItemId: id,
      at,
      ...by,
      changes,
      outcome: CorrectionOutcome.ProviderRejected,
      failure: { code: failure.code, message: failure.message },
    };
    await ctx.store.appendAudit(audit);
    return { outcome: CorrectionOutcome.ProviderRejected, failure, audit };
  }
  if (error instanceof ProviderUnavailableError) {
    return { outcome: CorrectionOutcome.NotSent, failure: { code: error.code, message: error.message } };
  }
  const failure = {
    code:
      error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : 'UNEXPECTED',
    message: error instanceof Error ? error.message : String(error),
  };
  ctx.logger.warn('bulk item correction outcome unknown', { bulkPayoutItemId: id, code: failure.code });
  const audit = { bulkPayoutItemId: id, at, ...by, changes, outcome: CorrectionOutcome.Unknown, failure };
  await ctx.store.appendAudit(audit);
  return { outcome: CorrectionOutcome.Unknown, failure, audit };
}
