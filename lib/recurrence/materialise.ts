import { ApprovalForbiddenError } from '../payouts/errors.js';
import { PayoutStatus, systemPrincipal } from '../payouts/model.js';
import {
  IdempotencyConflictError,
  InvalidTransitionError,
  isConcurrentModificationOf,
  ValidationError,
} from '../shared/errors.js';
import type { RecurrenceContext } from './context.js';
import { OccurrenceState, type Recurrence, RecurrenceStatus } from './model.js';
import { type Occurrence, occurrences } from './rules.js';

export interface RecurrenceSweepOptions {
  /** Most recurrences taken in one tick. */
  readonly limit?: number;
  /** Recurrences worked on at once. */
  readonly concurrency?: number;
  /** Start no new recurrence after this instant (epoch ms on the real clock). */
  readonly stopStartingAt?: number;
}

export interface RecurrenceSweepReport {
  /** Work-queue items read: only due recurrences are read. */
  readonly read: number;
  /** Occurrences turned into `scheduled` payouts (replays of an earlier tick included). */
  readonly materialised: number;
  /** Occurrences materialised after their own time (after an outage); the engine pays or marks them missed. */
  readonly late: number;
  readonly skipped: number;
  readonly completed: number;
  /** Recurrences another tick advanced first. */
  readonly conflicts: number;
  readonly leftOver: boolean;
}

/** The recurrence sweep acting on its own (cancelling the payout of a skipped occurrence); never a requester. */
export const recurrenceActor = systemPrincipal('recurrence');

/**
 * The payout key of an occurrence's `generation`-th payout: a repeated, concurrent or retried tick can never
 * pay it twice. The first is `<recurrenceId>:<localDate>`; a pause that cancelled it and a resume before its
 * time make the next `<recurrenceId>:<localDate>:<generation>`, since the cancelled payout holds the first key.
 */
export const occurrenceKey = (recurrenceId: string, localDate: string, generation = 1): string =>
  generation === 1 ? `${recurrenceId}:${localDate}` : `${recurrenceId}:${localDate}:${generation}`;

/** The occurrence at or after `index`, if the rule has one. */
export function occurrenceFrom(recurrence: Recurrence, index: number): Occurrence | undefined {
  return occurrences(recurrence.rule, { fromIndex: index, limit: 1 })[0];
}

/**
 * One tick of the recurrence sweep: for every active recurrence whose next occurrence falls within the
 * horizon, create that occurrence's payout (deterministic key), record it in the history and advance the
 * pointer with a write conditional on the version. The engine's sweep then releases each payout at its time
 * and marks it `missed` when found beyond the allowed lateness.
 */
export async function sweepRecurrences(
  ctx: RecurrenceContext,
  options: RecurrenceSweepOptions = {},
): Promise<RecurrenceSweepReport> {
  const limit = options.limit ?? 100;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const now = ctx.clock.now();
  const horizon = new Date(now.getTime() + ctx.config.horizonMs).toISOString();
  const { items, read } = await ctx.store.due(horizon, limit);
  const totals = { materialised: 0, late: 0, skipped: 0, completed: 0, conflicts: 0 };
  let leftOver = items.length >= limit;
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      if (options.stopStartingAt !== undefined && Date.now() >= options.stopStartingAt) {
        leftOver = true;
        return;
      }
      const recurrence = items[next++] as Recurrence;
      const result = await materialiseRecurrence(ctx, recurrence, now, horizon);
      totals.materialised += result.materialised;
      totals.late += result.late;
      totals.skipped += result.skipped;
      totals.completed += result.completed;
      totals.conflicts += result.conflict ? 1 : 0;
      if (result.more) leftOver = true;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return { read, ...totals, leftOver };
}

async function materialiseRecurrence(ctx: RecurrenceContext, start: Recurrence, now: Date, horizon: string) {
  const result = { materialised: 0, late: 0, skipped: 0, completed: 0, conflict: false, more: false };
  let recurrence = start;
  for (let step = 0; ; step++) {
    if (recurrence.status !== RecurrenceStatus.Active || !recurrence.nextOccurrenceAt) return result;
    if (recurrence.nextOccurrenceAt > horizon) return result;
    if (step >= ctx.config.maxOccurrencesPerTick) {
      result.more = true;
      return result;
    }
    const occurrence = occurrenceFrom(recurrence, recurrence.nextIndex);
    let created: string | undefined;
    if (occurrence) {
      if (recurrence.skippedDates.includes(occurrence.localDate)) {
        await skipOccurrence(ctx, recurrence, occurrence, now, 'skipped on request');
        result.skipped++;
      } else {
        const outcome = await materialiseOccurrence(ctx, recurrence, occurrence, now);
        if (outcome.kind === 'skipped') result.skipped++;
        else {
          created = outcome.payoutId;
          result.materialised++;
          if (outcome.late) result.late++;
        }
      }
    }
    const following = occurrence ? occurrenceFrom(recurrence, occurrence.index + 1) : undefined;
    const { nextOccurrenceAt: _at, nextLocalDate: _date, ...rest } = recurrence;
    const after: Recurrence = {
      ...rest,
      nextIndex: following?.index ?? recurrence.nextIndex + 1,
      ...(following && { nextOccurrenceAt: following.at, nextLocalDate: following.localDate }),
      status: following ? recurrence.status : RecurrenceStatus.Completed,
      ...(!following && { statusReason: 'no occurrence left (endDate or maxOccurrences reached)' }),
      skippedDates: recurrence.skippedDates.filter((date) => !occurrence || date > occurrence.localDate),
      version: recurrence.version + 1,
      updatedAt: now.toISOString(),
    };
    try {
      recurrence = await ctx.store.replace(recurrence, after);
    } catch (error) {
      if (!isConcurrentModificationOf(error, 'recurring payout')) throw error;
      // Another tick or a command moved it first; the next tick starts from there. A pause or cancel that
      // read the history before this occurrence was recorded could not stop its payout: do it here.
      result.conflict = true;
      if (occurrence && created) await stopIfNoLongerActive(ctx, recurrence.id, occurrence, created, now);
      return result;
    }
    if (!following) {
      result.completed++;
      ctx.logger.info('recurring payout completed', { recurrenceId: recurrence.id });
    }
  }
}

type MaterialiseOutcome =
  | { readonly kind: 'materialised'; readonly payoutId: string; readonly late: boolean }
  | { readonly kind: 'skipped' };

/**
 * Creates (or finds again) the occurrence's payout, requested by the rule's creator and carrying the rule's
 * approver, and records it. An occurrence already skipped gets no payout; one held by a pause gets its next
 * generation (the cancelled payout keeps the older key).
 */
async function materialiseOccurrence(
  ctx: RecurrenceContext,
  recurrence: Recurrence,
  occurrence: Occurrence,
  now: Date,
): Promise<MaterialiseOutcome> {
  const late = occurrence.at < now.toISOString();
  const existing = await ctx.store.getOccurrence(recurrence.id, occurrence.localDate);
  if (existing?.state === OccurrenceState.Skipped) return { kind: 'skipped' };
  if (existing?.state === OccurrenceState.Materialised && existing.payoutId) {
    // A tick that advanced no pointer after recording it (crash, lost race): the payout exists already.
    return { kind: 'materialised', payoutId: existing.payoutId, late };
  }
  const generation = existing?.state === OccurrenceState.Held ? (existing.generation ?? 1) + 1 : 1;
  let payoutId: string;
  try {
    const { payout } = await ctx.payouts.create({
      request: { ...recurrence.template, scheduleAt: occurrence.at },
      idempotencyKey: occurrenceKey(recurrence.id, occurrence.localDate, generation),
      origin: 'schedule',
      sourceRef: recurrence.id,
      // Four eyes: the person who made the rule asks for every occurrence, so they can never approve one.
      actor: recurrence.createdBy,
      ...(recurrence.approvedBy && { approvedBy: recurrence.approvedBy }),
    });
    payoutId = payout.id;
  } catch (error) {
    if (
      !(
        error instanceof ValidationError ||
        error instanceof IdempotencyConflictError ||
        error instanceof ApprovalForbiddenError
      )
    )
      throw error;
    // Never silent: recorded in the history and logged as an error for ops.
    ctx.logger.error('recurring payout occurrence refused by the engine', {
      recurrenceId: recurrence.id,
      localDate: occurrence.localDate,
      error: error.message,
    });
    await ctx.store.recordSkipped({
      recurrenceId: recurrence.id,
      localDate: occurrence.localDate,
      index: occurrence.index,
      at: occurrence.at,
      state: OccurrenceState.Skipped,
      reason: `refused: ${error.message}`,
      recordedAt: now.toISOString(),
    });
    return { kind: 'skipped' };
  }
  const outcome = await ctx.store.recordMaterialised({
    recurrenceId: recurrence.id,
    localDate: occurrence.localDate,
    index: occurrence.index,
    at: occurrence.at,
    state: OccurrenceState.Materialised,
    payoutId,
    generation,
    recordedAt: now.toISOString(),
  });
  if (!outcome.recorded) {
    // A skip, or a pause and resume that moved to a newer generation, landed between reading the record and
    // creating this payout: the record wins, so this payout must never be paid.
    if (outcome.current.payoutId !== payoutId) await cancelQuietly(ctx, payoutId, 'occurrence skipped');
    return { kind: 'skipped' };
  }
  if (late) {
    ctx.logger.warn('recurring payout occurrence materialised after its time', {
      recurrenceId: recurrence.id,
      localDate: occurrence.localDate,
      at: occurrence.at,
      payoutId,
    });
  }
  return { kind: 'materialised', payoutId, late };
}

/**
 * After losing the race for the pointer: if the recurrence was paused or cancelled meanwhile, the payout this
 * tick just created for a future occurrence is cancelled and the occurrence held (paused) or skipped.
 */
async function stopIfNoLongerActive(
  ctx: RecurrenceContext,
  recurrenceId: string,
  occurrence: Occurrence,
  payoutId: string,
  now: Date,
): Promise<void> {
  const current = await ctx.store.get(recurrenceId);
  const stopped =
    current?.status === RecurrenceStatus.Paused || current?.status === RecurrenceStatus.Cancelled;
  if (!current || !stopped || occurrence.at <= now.toISOString()) return;
  const reason = `recurring payout ${current.status} while this occurrence was materialised`;
  if (!(await cancelQuietly(ctx, payoutId, reason))) return;
  if (current.status === RecurrenceStatus.Paused) {
    await ctx.store.holdOccurrence(recurrenceId, occurrence.localDate, payoutId, reason);
  } else {
    await skipOccurrence(ctx, current, occurrence, now, reason);
  }
}

/**
 * Records that an occurrence will not be paid, cancelling its payout if one is still scheduled. A payout
 * already released (or cancelled by a person) is left as it is and the record too: its payout's status tells
 * what happened, and the history never says "skipped" of money that moved. False when nothing was recorded.
 */
export async function skipOccurrence(
  ctx: RecurrenceContext,
  recurrence: Recurrence,
  occurrence: Occurrence,
  now: Date,
  reason: string,
): Promise<boolean> {
  const existing = await ctx.store.getOccurrence(recurrence.id, occurrence.localDate);
  if (existing?.state === OccurrenceState.Skipped) return false;
  if (
    existing?.state === OccurrenceState.Materialised &&
    existing.payoutId &&
    !(await cancelledOrCancel(ctx, existing.payoutId, reason))
  ) {
    return false;
  }
  await ctx.store.recordSkipped({
    recurrenceId: recurrence.id,
    localDate: occurrence.localDate,
    index: occurrence.index,
    at: occurrence.at,
    state: OccurrenceState.Skipped,
    reason,
    ...(existing?.payoutId && { payoutId: existing.payoutId }),
    recordedAt: now.toISOString(),
  });
  return true;
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
