import {
  IdempotencyConflictError,
  InvalidTransitionError,
  PayoutValidationError,
} from '../payouts/errors.js';
import { PayoutStatus, systemPrincipal } from '../payouts/model.js';
import type { RecurrenceContext } from './context.js';
import { RecurrenceConflictError } from './errors.js';
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

export const recurrenceActor = systemPrincipal('recurrence');

/** The payout key of an occurrence: a repeated, concurrent or retried tick can never pay it twice. */
export const occurrenceKey = (recurrenceId: string, localDate: string): string =>
  `${recurrenceId}:${localDate}`;

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
    if (occurrence) {
      if (recurrence.skippedDates.includes(occurrence.localDate)) {
        await skipOccurrence(ctx, recurrence, occurrence, now, 'skipped on request');
        result.skipped++;
      } else {
        const late = await materialiseOccurrence(ctx, recurrence, occurrence, now);
        if (late === 'invalid') result.skipped++;
        else {
          result.materialised++;
          if (late) result.late++;
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
      if (!(error instanceof RecurrenceConflictError)) throw error;
      // Another tick (or a command) moved it first; whatever it did, the next tick starts from there.
      result.conflict = true;
      return result;
    }
    if (!following) {
      result.completed++;
      ctx.logger.info('recurring payout completed', { recurrenceId: recurrence.id });
    }
  }
}

/** Creates (or finds again) the occurrence's payout; true when it is materialised after its time. */
async function materialiseOccurrence(
  ctx: RecurrenceContext,
  recurrence: Recurrence,
  occurrence: Occurrence,
  now: Date,
): Promise<boolean | 'invalid'> {
  const idempotencyKey = occurrenceKey(recurrence.id, occurrence.localDate);
  let payoutId: string;
  let payoutStatus: string;
  try {
    const { payout } = await ctx.payouts.create({
      request: { ...recurrence.template, scheduleAt: occurrence.at },
      idempotencyKey,
      origin: 'schedule',
      sourceRef: recurrence.id,
      actor: recurrenceActor,
    });
    payoutId = payout.id;
    payoutStatus = payout.status;
  } catch (error) {
    if (!(error instanceof PayoutValidationError || error instanceof IdempotencyConflictError)) throw error;
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
    return 'invalid';
  }
  const record = await ctx.store.recordMaterialised({
    recurrenceId: recurrence.id,
    localDate: occurrence.localDate,
    index: occurrence.index,
    at: occurrence.at,
    state: OccurrenceState.Materialised,
    payoutId,
    recordedAt: now.toISOString(),
  });
  if (record.state === OccurrenceState.Skipped && payoutStatus === PayoutStatus.Scheduled) {
    // A skip landed between reading the recurrence and creating the payout: the skip wins.
    await cancelQuietly(ctx, payoutId, 'occurrence skipped');
  }
  const late = occurrence.at < now.toISOString();
  if (late) {
    ctx.logger.warn('recurring payout occurrence materialised after its time', {
      recurrenceId: recurrence.id,
      localDate: occurrence.localDate,
      at: occurrence.at,
      payoutId,
    });
  }
  return late;
}

/** Records a skip and cancels the occurrence's payout if one was already created and is still scheduled. */
export async function skipOccurrence(
  ctx: RecurrenceContext,
  recurrence: Recurrence,
  occurrence: Occurrence,
  now: Date,
  reason: string,
): Promise<void> {
  const existing = await ctx.store.getOccurrence(recurrence.id, occurrence.localDate);
  if (existing?.payoutId) await cancelQuietly(ctx, existing.payoutId, reason);
  if (existing?.state === OccurrenceState.Skipped) return;
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
