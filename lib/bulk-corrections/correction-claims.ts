import { DailyCapExceededError, type Principal } from '../controls/index.js';
import type { CapChange } from '../payouts/index.js';
import { ConcurrentModificationError } from '../shared/errors.js';
import { ulid } from '../shared/ids.js';
import { type CorrectionContext, type JobRowHooks, SINGLE_CLAIM_LEASE_MS } from './correction-context.js';
import { capExceeded, pausedResult } from './correction-controls.js';
import type { BulkItemState, CorrectionResult } from './model.js';
import type { CorrectionFields } from './schemas.js';

/** A job row: the row's claim with the reservation, the pause read again, then the send. */
export async function claimRowAndSend(
  ctx: CorrectionContext,
  id: string,
  fields: CorrectionFields,
  actor: Principal,
  before: BulkItemState | undefined,
  row: JobRowHooks,
  cap: CapChange | undefined,
): Promise<CorrectionResult | { readonly outcome: 'skipped' }> {
  try {
    if (!(await row.claim(cap))) return { outcome: 'skipped' };
  } catch (error) {
    if (error instanceof DailyCapExceededError) return capExceeded(ctx, id, cap);
    throw error;
  }
  // Read again once the row's claim committed: a pause that landed after the read above is seen here, so once
  // `pausePayouts` returns no row claimed afterwards is sent. Paused, the reservation is given back here and the
  // caller gives the claim back (the row leaves `sending` for `paused`, nothing sent).
  const paused = await pausedResult(ctx);
  if (paused) {
    if (cap) await ctx.store.releaseCap(cap);
    return paused;
  }
  return ctx.sendReserved(id, fields, actor, cap, undefined, before);
}

/**
 * A single correction (PATCH): the item's claim with the reservation, the pause read again, then the send; the
 * claim ends once the outcome is recorded. The claim is what makes the same PATCH arriving twice at once send once.
 */
export async function claimAndSend(
  ctx: CorrectionContext,
  id: string,
  fields: CorrectionFields,
  actor: Principal,
  before: BulkItemState | undefined,
  now: Date,
  cap: CapChange | undefined,
): Promise<CorrectionResult> {
  const claimId = ulid(now);
  let claimed: boolean;
  try {
    claimed = await ctx.store.claimSingle(
      id,
      {
        claimId,
        at: now.toISOString(),
        leaseUntil: new Date(now.getTime() + SINGLE_CLAIM_LEASE_MS).toISOString(),
      },
      cap,
    );
  } catch (error) {
    if (error instanceof DailyCapExceededError) return capExceeded(ctx, id, cap);
    throw error;
  }
  if (!claimed)
    throw new ConcurrentModificationError('bulk payout item', id, {
      detail: `another correction of bulk payout item ${id} is being sent; nothing was sent: read the item, then correct it again if still needed`,
    });
  // Read again once the claim committed, as for a job row: paused, the claim and its reservation are given back
  // together, nothing sent.
  const paused = await pausedResult(ctx);
  if (paused) {
    await ctx.store.releaseSingle(id, claimId, ctx.clock.now().toISOString(), cap);
    return paused;
  }
  const result = await ctx.sendReserved(id, fields, actor, cap, undefined, before);
  await ctx.store.releaseSingle(id, claimId, ctx.clock.now().toISOString());
  return result;
}
