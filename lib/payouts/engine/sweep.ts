import { reachesApprovalThreshold, systemPrincipal } from '../../controls/index.js';
import { forEachAtOnce } from '../../shared/at-once.js';
import { ConcurrentModificationError } from '../../shared/errors.js';
import { WorkQueue } from '../../table/index.js';
import { type Payout, PayoutStatus } from '../model.js';
import { buildTransition, type EngineContext, type SendingContext, type TransitionSpec } from './context.js';
import {
  afterPendingIo,
  type Claimed,
  claimForSubmission,
  releaseUnsentClaim,
  type SubmitResult,
  sendClaimed,
  unlessPaused,
} from './submit-payout.js';

export interface SweepOptions {
  /** Most payouts taken in one sweep. */
  readonly limit?: number;
  /** Provider calls in flight at once. */
  readonly concurrency?: number;
  /** Start no new payout after this instant (epoch ms on the real clock), so the Lambda is not killed mid-payout. */
  readonly stopStartingAt?: number;
}

export interface SweepReport {
  readonly released: number;
  /** Scheduled payouts found too late to pay (after an outage); each is audited and logged as an error. */
  readonly missed: number;
  readonly submitted: number;
  readonly skipped: number;
  readonly outcomes: Readonly<Record<string, number>>;
  /** True when due work was left for the next tick (limit or time). */
  readonly leftOver: boolean;
}

const scheduler = systemPrincipal('scheduler');

/**
 * One tick of the due-payout sweeper: releases scheduled payouts whose time has come, then submits the
 * pending ones with bounded concurrency. Safe to run twice at once: every step is a conditional claim.
 */
export async function sweepDuePayouts(ctx: SendingContext, options: SweepOptions = {}): Promise<SweepReport> {
  const limit = options.limit ?? 200;
  const concurrency = Math.max(1, options.concurrency ?? 8);
  // Both queues are read at once (one round trip, not two); payouts released now join the pending ones.
  const [scheduled, pending] = await Promise.all([
    releaseScheduled(ctx, limit),
    ctx.store.due(WorkQueue.Submit, ctx.clock.now().toISOString(), limit),
  ]);
  const { released, missed } = scheduled;
  const pendingIds = new Set(pending.map((payout) => payout.id));
  const found = [...pending, ...scheduled.nowPending.filter((payout) => !pendingIds.has(payout.id))];
  const due = found.slice(0, limit);
  const outcomes: Record<string, number> = {};
  let submitted = 0;
  let skipped = 0;
  let next = 0;
  let stoppedEarly = false;
  const recordings: Promise<void>[] = [];
  const failures: unknown[] = [];
  const tally = (result: SubmitResult) => {
    if (result.kind === 'sent') {
      submitted++;
      outcomes[result.outcome] = (outcomes[result.outcome] ?? 0) + 1;
    } else skipped++;
  };
  const outOfTime = () => options.stopStartingAt !== undefined && Date.now() >= options.stopStartingAt;
  /** Claims the next payout of the list that can be claimed; undefined when none is left or time is up. */
  const claimNext = async (): Promise<Claimed | undefined> => {
    while (next < due.length) {
      if (outOfTime()) {
        stoppedEarly = true;
        return undefined;
      }
      const payout = due[next++] as Payout;
      try {
        const claimed = await claimForSubmission(ctx, payout);
        if (claimed.kind === 'claimed') return claimed;
        tally(claimed);
      } catch (error) {
        // One payout's failure (e.g. the store unreachable on its claim) must not abandon the calls the other
        // workers have in flight; it is reported once everything has finished.
        failures.push(error);
      }
    }
    return undefined;
  };
  /**
   * A claim taken ahead has waited for the previous provider call since its pause read: the pause is read again
   * when its turn comes, so "once the pause returns nothing new is sent" holds for it too. Paused, the claim is
   * given back unsent and the worker takes the next payout, whose claim reads the pause anew.
   */
  const whenItsTurnComes = async (ahead: Claimed): Promise<Claimed | undefined> => {
    try {
      const checked = await unlessPaused(ctx, ahead);
      if (checked.kind === 'claimed') return checked;
      tally(checked);
    } catch (error) {
      failures.push(error);
    }
    return claimNext();
  };
  // Each worker claims its next payout while the provider answers the current one, so a worker's pace is the
  // provider's latency, not latency plus a claim. A claim taken ahead waits at most one provider call (well
  // within the lease); if time runs out meanwhile it is given back unsent.
  const worker = async () => {
    let current = await claimNext();
    while (current) {
      const upcoming = afterPendingIo(claimNext);
      // The outcome is written while this worker goes on; all writes are awaited below. A handler is attached
      // at once, so a failed write is never an unhandled rejection meanwhile.
      try {
        const sent = await sendClaimed(ctx, current);
        recordings.push(sent.recording.then(tally, (error) => void failures.push(error)));
      } catch (error) {
        failures.push(error);
      }
      const ahead = await upcoming;
      if (ahead && outOfTime()) {
        stoppedEarly = true;
        await releaseUnsentClaim(ctx, ahead, 'the sweep ran out of time before its turn').catch(
          (error) => void failures.push(error),
        );
        return;
      }
      current = ahead && (await whenItsTurnComes(ahead));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, due.length) }, worker));
  await Promise.all(recordings);
  if (failures.length > 0) {
    // Payouts whose claim failed are still `pending`; those whose outcome could not be written wait in
    // `submitting` until their lease ends and the reconciler looks them up. Fail the invocation so it alarms.
    ctx.logger.error('sweep finished with failures', { failures: failures.length, submitted, skipped });
    throw failures[0];
  }
  return { released, missed, submitted, skipped, outcomes, leftOver: stoppedEarly || found.length >= limit };
}

/** Releases written at once by one tick: conditional writes of distinct payouts, so they never contend. */
export const RELEASES_IN_FLIGHT = 32;

/**
 * Releases up to `limit` due scheduled payouts (the oldest first): each becomes pending (or awaits approval, or
 * is missed when found too late), by its own conditional transition, `RELEASES_IN_FLIGHT` at once, so a
 * month-end page of 500 takes a few round trips, not 500. A payout released by a concurrent tick meanwhile is
 * skipped (its condition failed); any other failure is thrown once the writes in flight are done.
 */
export async function releaseScheduled(
  ctx: EngineContext,
  limit: number,
): Promise<{ released: number; missed: number; read: number; nowPending: Payout[] }> {
  const now = ctx.clock.now();
  const nowPending: Payout[] = [];
  let released = 0;
  let missed = 0;
  const page = await ctx.store.due(WorkQueue.Due, now.toISOString(), limit);
  const releasable = page.filter((payout) => payout.status === PayoutStatus.Scheduled && payout.scheduleAt);
  await forEachAtOnce(releasable, RELEASES_IN_FLIGHT, async (payout) => {
    const outcome = await releaseOne(ctx, payout, now);
    if (outcome === undefined) return;
    if (outcome.missed) missed++;
    else released++;
    if (outcome.after.status === PayoutStatus.Pending) nowPending.push(outcome.after);
  });
  return { released, missed, read: page.length, nowPending };
}

/** One scheduled payout's release; undefined when another tick released it first. */
async function releaseOne(
  ctx: EngineContext,
  payout: Payout,
  now: Date,
): Promise<{ readonly after: Payout; readonly missed: boolean } | undefined> {
  const lateMs = now.getTime() - new Date(payout.scheduleAt ?? now.toISOString()).getTime();
  const needsApproval = reachesApprovalThreshold(ctx.config, payout.amountKobo) && !payout.approvedBy;
  const spec: TransitionSpec =
    lateMs > ctx.config.maxLatenessMs
      ? {
          to: PayoutStatus.Missed,
          actor: scheduler,
          reason: `found ${Math.round(lateMs / 60_000)} min after its scheduled time, beyond the allowed lateness; not paid`,
          changes: {
            failure: {
              code: 'MISSED',
              message: `due at ${payout.scheduleAt}, found at ${now.toISOString()}`,
            },
          },
        }
      : {
          to: needsApproval ? PayoutStatus.PendingApproval : PayoutStatus.Pending,
          actor: scheduler,
          reason: needsApproval ? 'scheduled time reached; waits for approval' : 'scheduled time reached',
        };
  let after: Payout;
  try {
    after = await ctx.store.transition(buildTransition(payout, spec, now));
  } catch (error) {
    if (error instanceof ConcurrentModificationError) return undefined;
    throw error;
  }
  if (spec.to === PayoutStatus.Missed) {
    ctx.metrics.count('PayoutMissed');
    ctx.logger.error('scheduled payout missed', {
      payoutId: payout.id,
      idempotencyKey: payout.idempotencyKey,
      scheduleAt: payout.scheduleAt,
    });
  }
  return { after, missed: spec.to === PayoutStatus.Missed };
}
