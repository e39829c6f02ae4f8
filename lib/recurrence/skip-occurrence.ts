import { systemPrincipal } from '../controls/index.js';
import { PayoutStatus } from '../payouts/index.js';
import { ConcurrentModificationError, InvalidTransitionError } from '../shared/errors.js';
import type { CommandAudit } from './command-audit.js';
import type { RecurrenceContext } from './context.js';
import { type OccurrenceRecord, OccurrenceState, type Recurrence } from './model.js';
import type { Occurrence } from './rules.js';

/** The recurrence sweep acting on its own (cancelling the payout of a skipped occurrence); never a requester. */
export const recurrenceActor = systemPrincipal('recurrence');

/** What a skip did: recorded it, found it skipped already, or left it because its payout is past cancelling. */
export type SkipOutcome =
  | { readonly kind: 'recorded' }
  | { readonly kind: 'alreadySkipped' }
  | { readonly kind: 'payoutMoved'; readonly payoutId: string };

/** How many times a skip reads the record again after it changed under it (each change is another writer's). */
const SKIP_ATTEMPTS = 5;

/**
 * Records that an occurrence will not be paid, cancelling its payout if one is still scheduled (one cancelled
 * already, by a pause or a person, is recorded skipped too). A payout already released is left as it is and the
 * record too (`payoutMoved`): its payout's status tells what happened, and the history never says "skipped" of
 * money that moved.
 *
 * The record is written only over the one read: when a tick materialised the occurrence in between, the skip
 * reads it again, cancels that payout first, and only then records the skip. A command passes its `audit`, so the
 * record never changes without the command's audit event (command-audit.ts); the sweep's own skips pass none.
 *
 * @throws ConcurrentModificationError when the record kept changing under it
 */
export async function skipOccurrence(
  ctx: RecurrenceContext,
  recurrence: Recurrence,
  occurrence: Occurrence,
  now: Date,
  reason: string,
  audit?: CommandAudit,
): Promise<SkipOutcome> {
  let existing = await ctx.store.getOccurrence(recurrence.id, occurrence.localDate);
  for (let attempt = 1; ; attempt++) {
    const outcome = await skipOverRecord(ctx, recurrence, occurrence, now, reason, existing, audit);
    if (outcome) return outcome;
    if (attempt >= SKIP_ATTEMPTS) throw new ConcurrentModificationError('recurring payout', recurrence.id);
    existing = await ctx.store.getOccurrence(recurrence.id, occurrence.localDate);
  }
}

/**
 * One attempt of `skipOccurrence` over `existing`, the record as last read (undefined: none). Undefined when the
 * record changed before the skip could be written over it.
 */
export async function skipOverRecord(
  ctx: RecurrenceContext,
  recurrence: Recurrence,
  occurrence: Occurrence,
  now: Date,
  reason: string,
  existing: OccurrenceRecord | undefined,
  audit?: CommandAudit,
): Promise<SkipOutcome | undefined> {
  if (existing?.state === OccurrenceState.Skipped) return { kind: 'alreadySkipped' };
  if (
    existing?.state === OccurrenceState.Materialised &&
    existing.payoutId &&
    !(await cancelledOrCancel(ctx, existing.payoutId, reason))
  ) {
    return { kind: 'payoutMoved', payoutId: existing.payoutId };
  }
  const skipped: OccurrenceRecord = {
    recurrenceId: recurrence.id,
    localDate: occurrence.localDate,
    index: occurrence.index,
    at: occurrence.at,
    state: OccurrenceState.Skipped,
    reason,
    ...(existing?.payoutId && { payoutId: existing.payoutId }),
    recordedAt: now.toISOString(),
  };
  const recorded = audit
    ? await audit.write(recurrence, (provisional) => ctx.store.recordSkipped(skipped, existing, provisional))
    : await ctx.store.recordSkipped(skipped, existing);
  return recorded ? { kind: 'recorded' } : undefined;
}

/** True when the payout is cancelled, by this call (it was still `scheduled`) or before. */
async function cancelledOrCancel(ctx: RecurrenceContext, payoutId: string, reason: string): Promise<boolean> {
  if (await cancelQuietly(ctx, payoutId, reason)) return true;
  return (await ctx.payouts.get(payoutId))?.status === PayoutStatus.Cancelled;
}

/** Cancels a payout that is still `scheduled`; one already released or paid is left alone. */
export async function cancelQuietly(
  ctx: RecurrenceContext,
  payoutId: string,
  reason: string,
): Promise<boolean> {
  const payout = await ctx.payouts.get(payoutId);
  if (payout?.status !== PayoutStatus.Scheduled) return false;
  try {
    await ctx.payouts.cancel(payoutId, recurrenceActor, reason);
    return true;
  } catch (error) {
    if (error instanceof InvalidTransitionError) return false;
    throw error;
  }
}
