import { ApprovalForbiddenError } from '../controls/index.js';
import { type CreatePayoutResult, CreationCompanionRefusedError } from '../payouts/index.js';
import { IdempotencyConflictError, isConcurrentModificationOf, ValidationError } from '../shared/errors.js';
import type { RecurrenceContext } from './context.js';
import { type OccurrenceRecord, OccurrenceState, type Recurrence, RecurrenceStatus } from './model.js';
import { type Occurrence, occurrences } from './rules.js';
import { cancelQuietly, skipOccurrence } from './skip-occurrence.js';

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
    // Written in the payout's creating transaction when this tick creates it (one write of the recurrence per
    // occurrence); otherwise by the tick's own conditional write below.
    let advanced: Recurrence | undefined;
    if (occurrence) {
      if (recurrence.skippedDates.includes(occurrence.localDate)) {
        await skipOccurrence(ctx, recurrence, occurrence, now, 'skipped on request');
        result.skipped++;
      } else {
        const pointer = advancedPast(recurrence, occurrence, now);
        const outcome = await materialiseOccurrence(ctx, recurrence, occurrence, now, pointer);
        if (outcome.kind === 'conflict') {
          // A command or another tick changed the recurrence or this occurrence first: nothing was created, and
          // the next tick starts from what they are now.
          result.conflict = true;
          return result;
        }
        if (outcome.kind === 'materialised' && outcome.advanced) advanced = pointer;
        // The payout's creation moved the version on (see materialiseOccurrence), with the pointer or without it.
        recurrence = { ...recurrence, version: outcome.version };
        if (outcome.kind === 'skipped') result.skipped++;
        else {
          created = outcome.payoutId;
          result.materialised++;
          if (outcome.late) result.late++;
        }
      }
    }
    const after = advanced ?? advancedPast(recurrence, occurrence, now);
    const following = after.nextOccurrenceAt !== undefined;
    if (advanced) recurrence = advanced;
    else {
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
    }
    if (!following) {
      result.completed++;
      ctx.logger.info('recurring payout completed', { recurrenceId: recurrence.id });
    }
  }
}

/**
 * The recurrence once `occurrence` is behind it, one version on: the pointer at the occurrence that follows
 * (completed when none does), the skipped dates up to it dropped.
 */
function advancedPast(recurrence: Recurrence, occurrence: Occurrence | undefined, now: Date): Recurrence {
  const following = occurrence ? occurrenceFrom(recurrence, occurrence.index + 1) : undefined;
  const { nextOccurrenceAt: _at, nextLocalDate: _date, ...rest } = recurrence;
  return {
    ...rest,
    nextIndex: following?.index ?? recurrence.nextIndex + 1,
    ...(following && { nextOccurrenceAt: following.at, nextLocalDate: following.localDate }),
    status: following ? recurrence.status : RecurrenceStatus.Completed,
    ...(!following && { statusReason: 'no occurrence left (endDate or maxOccurrences reached)' }),
    skippedDates: recurrence.skippedDates.filter((date) => !occurrence || date > occurrence.localDate),
    version: recurrence.version + 1,
    updatedAt: now.toISOString(),
  };
}

/** What became of the occurrence, and the recurrence's version after it (`version`). */
type MaterialiseOutcome =
  | {
      readonly kind: 'materialised';
      readonly payoutId: string;
      readonly late: boolean;
      readonly version: number;
      /** The creation wrote the recurrence's advanced pointer too (the tick writes it no more). */
      readonly advanced?: boolean;
    }
  | { readonly kind: 'skipped'; readonly version: number }
  | { readonly kind: 'conflict' };

/**
 * Creates (or finds again) the occurrence's payout, requested by the rule's creator and carrying the rule's
 * approver, and records it. An occurrence already skipped gets no payout; one held by a pause gets its next
 * generation (the cancelled payout keeps the older key).
 *
 * A new payout commits in one transaction with its history record and a step of the recurrence's version
 * (RecurrenceStore.materialisation): no payout of an occurrence exists without the record naming it, even when
 * the tick dies right after; and a pause, cancel or skip that read the recurrence before the payout existed
 * fails its conditional write and reads the history again, where it finds the payout to stop.
 */
async function materialiseOccurrence(
  ctx: RecurrenceContext,
  recurrence: Recurrence,
  occurrence: Occurrence,
  now: Date,
  advanced: Recurrence,
): Promise<MaterialiseOutcome> {
  const late = occurrence.at < now.toISOString();
  const { version } = recurrence;
  const existing = await ctx.store.getOccurrence(recurrence.id, occurrence.localDate);
  if (existing?.state === OccurrenceState.Skipped) return { kind: 'skipped', version };
  if (existing?.state === OccurrenceState.Materialised && existing.payoutId) {
    // A tick that advanced no pointer after recording it (crash, lost race): the payout exists already.
    return { kind: 'materialised', payoutId: existing.payoutId, late, version };
  }
  const generation = existing?.state === OccurrenceState.Held ? (existing.generation ?? 1) + 1 : 1;
  const recordOf = (payoutId: string): OccurrenceRecord => ({
    recurrenceId: recurrence.id,
    localDate: occurrence.localDate,
    index: occurrence.index,
    at: occurrence.at,
    state: OccurrenceState.Materialised,
    payoutId,
    generation,
    recordedAt: now.toISOString(),
  });
  let created: CreatePayoutResult;
  try {
    created = await ctx.payouts.create({
      request: { ...recurrence.template, scheduleAt: occurrence.at },
      idempotencyKey: occurrenceKey(recurrence.id, occurrence.localDate, generation),
      origin: 'schedule',
      sourceRef: recurrence.id,
      // Every occurrence of the rule on one id: "what did rule X pay" is one query of the logs. A ULID is of the
      // correlation id's characters already (correlationIdFrom, which the sweep's bundle need not carry).
      correlationId: `rule:${recurrence.id}`,
      // Four eyes: the person who made the rule asks for every occurrence, so they can never approve one.
      actor: recurrence.createdBy,
      ...(recurrence.approvedBy && { approvedBy: recurrence.approvedBy }),
      // Only while the record and the recurrence are as read here: a skip, pause or cancel that wrote first
      // means no payout at all.
      companion: (payout) => ctx.store.materialisation(recordOf(payout.id), recurrence, advanced),
    });
  } catch (error) {
    if (error instanceof CreationCompanionRefusedError) return { kind: 'conflict' };
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
    await skipOccurrence(ctx, recurrence, occurrence, now, `refused: ${error.message}`);
    return { kind: 'skipped', version };
  }
  const payoutId = created.payout.id;
  if (!created.replayed) {
    // The creation committed with its companion: the record naming this payout and the recurrence advanced past
    // the occurrence, conditional on what this tick read. A skip, pause or cancel after it finds the payout in
    // the history and stops it itself, so nothing here needs writing again.
    logIfLate(ctx, recurrence, occurrence, late, payoutId);
    return { kind: 'materialised', payoutId, late, version: advanced.version, advanced: true };
  }
  // A replay of the key (another tick created it) wrote nothing: the record is made to name it here, reading
  // back what holds now.
  const outcome = await ctx.store.recordMaterialised(recordOf(payoutId));
  if (!outcome.recorded) {
    // A skip, or a pause and resume that moved to a newer generation, landed between reading the record and
    // creating this payout: the record wins, so this payout must never be paid.
    if (outcome.current.payoutId !== payoutId) await cancelQuietly(ctx, payoutId, 'occurrence skipped');
    return { kind: 'skipped', version };
  }
  logIfLate(ctx, recurrence, occurrence, late, payoutId);
  return { kind: 'materialised', payoutId, late, version };
}

function logIfLate(
  ctx: RecurrenceContext,
  recurrence: Recurrence,
  occurrence: Occurrence,
  late: boolean,
  payoutId: string,
): void {
  if (!late) return;
  ctx.logger.warn('recurring payout occurrence materialised after its time', {
    recurrenceId: recurrence.id,
    localDate: occurrence.localDate,
    at: occurrence.at,
    payoutId,
  });
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
