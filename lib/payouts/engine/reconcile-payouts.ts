import { systemPrincipal } from '../../controls/index.js';
import { WorkQueue } from '../../table/index.js';
import { providerAttemptOf } from '../gateway.js';
import { newlyPaidTwice, type Payout, PayoutStatus, type WatchedAttempt } from '../model.js';
import { addMs, type EngineContext, type SendingContext, type TransitionSpec } from './context.js';
import {
  type AttemptLook,
  type FoundLook,
  isAmbiguous,
  isFailedLookup,
  isFound,
  LOOKUP_DEADLINE_MS,
  lookFor,
  paidTwiceSpec,
  recheckWait,
  reportNeedsReview,
  tryTransition,
  watchCurrentAttempt,
  watchPayout,
} from './watch-attempts.js';

const reconciler = systemPrincipal('reconciler');

export interface ReconcileReport {
  readonly leasesExpired: number;
  readonly succeeded: number;
  readonly failed: number;
  /** Unknown payouts whose attempt was proved absent and which went back to pending for a new attempt. */
  readonly reattempted: number;
  readonly needsReview: number;
  readonly stillUnknown: number;
  /** Decided payouts whose earlier attempts were looked for again (see watch-attempts.ts). */
  readonly watched: number;
  /** Payouts found paid twice in this pass (an alarm fires on any). */
  readonly paidTwice: number;
  /** Payouts waiting in needs_review after this pass (a gauge: alarms fire while it stays above 0). */
  readonly openNeedsReview: number;
  /** Payouts still unknown after this pass. */
  readonly openUnknown: number;
}

const OPEN_COUNT_LIMIT = 1000;
/**
 * Pages a gauge's count reads at most: a pass's tail costs a known time (test/infra/handler-limits.test.ts). A
 * page holds at least two items (1 MB, items up to 400 KB), so a gauge above 0 still reads above 0 and its
 * alarm fires; past the pages the count reads low, never zero.
 */
export const OPEN_COUNT_MAX_PAGES = 2;

/**
 * Decides payouts whose outcome is unknown, without ever resending an attempt.
 *
 * 1. A payout left in `submitting` past its lease (a crash between the provider call and the state write)
 *    becomes `unknown`.
 * 2. Each `unknown` payout due for a look is searched on the provider by its current attempt's marker, and by
 *    the markers of its earlier attempts: found -> `succeeded` with the provider's ids; absent once the grace
 *    period is over -> `pending` for a new attempt with a new marker (or `failed` after `maxAbsentAttempts`);
 *    several or disagreeing records, or no answer for too long -> `needs_review`, which alerts a person.
 * 3. Decided payouts with earlier attempts are watched for a late record for `watchWindowMs` (paid twice).
 */
export interface ReconcileOptions {
  readonly limit?: number;
  /** Start no new look-up after this instant (epoch ms on the real clock), so the Lambda is not cut off mid-write. */
  readonly stopStartingAt?: number;
  /** How long one look-up may take (default `LOOKUP_DEADLINE_MS`); past it the payout is looked at again later. */
  readonly lookupDeadlineMs?: number;
}

/** In-flight payouts one page of the look for ended leases reads, and the pages one look reads at most. */
export const LEASE_SCAN_PAGE_ITEMS = 250;
const LEASE_SCAN_MAX_PAGES = 40;

/**
 * `submitting` payouts whose lease ended by `now`, up to `limit`: presumed crashed mid-call. A payout in flight
 * is in no work queue (it would cost two index writes on every send), so they are read from the status listing,
 * every payout in flight with them (as many as the submission concurrency sends at once), newest first, page by
 * page until `limit` are found, the listing ends or `outOfTime` says stop, at most LEASE_SCAN_MAX_PAGES pages of
 * LEASE_SCAN_PAGE_ITEMS (10,000 in flight) a pass: the reconciler passes again each minute.
 */
export async function endedLeases(
  ctx: EngineContext,
  now: string,
  limit: number,
  outOfTime: () => boolean = () => false,
): Promise<Payout[]> {
  const ended: Payout[] = [];
  let after: Record<string, unknown> | undefined;
  // Each page is one read, started only while there is time (the stop instant of the reconciler's invocation).
  for (let page = 0; page < LEASE_SCAN_MAX_PAGES && ended.length < limit && !outOfTime(); page++) {
    const listed = await ctx.store.inStatus(PayoutStatus.Submitting, LEASE_SCAN_PAGE_ITEMS, after);
    for (const payout of listed.items) {
      if (payout.attempt && payout.attempt.leaseUntil <= now && ended.length < limit) ended.push(payout);
    }
    if (listed.lastKey === undefined) break;
    after = listed.lastKey;
  }
  return ended;
}

export async function reconcilePayouts(
  ctx: SendingContext,
  options: ReconcileOptions = {},
): Promise<ReconcileReport> {
  const limit = options.limit ?? 100;
  const lookupDeadlineMs = options.lookupDeadlineMs ?? LOOKUP_DEADLINE_MS;
  const outOfTime = () => options.stopStartingAt !== undefined && Date.now() >= options.stopStartingAt;
  // Each work queue is read only while there is time to work it: past the stop instant only the gauges remain.
  const due = async (queue: WorkQueue) =>
    outOfTime() ? [] : ctx.store.due(queue, ctx.clock.now().toISOString(), limit);
  let leasesExpired = 0;
  const ended = await endedLeases(ctx, ctx.clock.now().toISOString(), limit, outOfTime);
  for (const payout of ended) {
    if (outOfTime()) break;
    if (await expireLease(ctx, payout)) leasesExpired++;
  }
  const tally = { succeeded: 0, failed: 0, reattempted: 0, needsReview: 0, stillUnknown: 0 };
  let paidTwice = 0;
  for (const payout of await due(WorkQueue.Reconcile)) {
    if (outOfTime()) break;
    const after = await reconcileOne(ctx, payout, lookupDeadlineMs);
    if (after.status === PayoutStatus.Succeeded) tally.succeeded++;
    else if (after.status === PayoutStatus.Failed) tally.failed++;
    else if (after.status === PayoutStatus.Pending) tally.reattempted++;
    else if (after.status === PayoutStatus.NeedsReview) tally.needsReview++;
    else tally.stillUnknown++;
    if (newlyPaidTwice(payout, after)) paidTwice++;
  }
  let watched = 0;
  for (const payout of await due(WorkQueue.Watch)) {
    if (outOfTime()) break;
    const after = await watchPayout(ctx, payout, lookupDeadlineMs);
    watched++;
    if (after.status === PayoutStatus.NeedsReview) tally.needsReview++;
    if (newlyPaidTwice(payout, after)) paidTwice++;
  }
  const [openNeedsReview, openUnknown] = await Promise.all([
    ctx.store.countByStatus(PayoutStatus.NeedsReview, OPEN_COUNT_LIMIT, { maxPages: OPEN_COUNT_MAX_PAGES }),
    ctx.store.countByStatus(PayoutStatus.Unknown, OPEN_COUNT_LIMIT, { maxPages: OPEN_COUNT_MAX_PAGES }),
  ]);
  ctx.metrics.count('PayoutsOpenNeedsReview', openNeedsReview);
  ctx.metrics.count('PayoutsOpenUnknown', openUnknown);
  const report = { leasesExpired, ...tally, watched, paidTwice, openNeedsReview, openUnknown };
  // INFO only for a pass that decided something: an idle pass (or one that only looked again) says nothing,
  // and each decision has its own line with the payout id (tryTransition's callers log it).
  const decided =
    leasesExpired + tally.succeeded + tally.failed + tally.reattempted + tally.needsReview + paidTwice;
  if (decided > 0) ctx.logger.info('reconciliation pass', { ...report });
  else ctx.logger.debug('reconciliation pass', { ...report });
  return report;
}

async function expireLease(ctx: EngineContext, payout: Payout): Promise<boolean> {
  const now = ctx.clock.now();
  if (
    payout.status !== PayoutStatus.Submitting ||
    !payout.attempt ||
    payout.attempt.leaseUntil > now.toISOString()
  ) {
    return false;
  }
  return tryTransition(ctx, payout, {
    to: PayoutStatus.Unknown,
    actor: reconciler,
    reason: `lease of claim ${payout.attempt.number} (provider attempt ${providerAttemptOf(payout)}) expired at ${payout.attempt.leaseUntil} with no recorded outcome`,
    changes: { nextActionAt: now.toISOString() },
  }).then((after) => after !== undefined);
}

/**
 * Looks one unknown payout up on the provider (its current attempt and every earlier one) and records what that
 * proves. Returns the payout as it is afterwards (unchanged when another writer got there first).
 */
export async function reconcileOne(
  ctx: SendingContext,
  payout: Payout,
  lookupDeadlineMs = LOOKUP_DEADLINE_MS,
): Promise<Payout> {
  if (payout.status !== PayoutStatus.Unknown) return payout;
  const now = ctx.clock.now();
  const current = {
    number: providerAttemptOf(payout),
    startedAt: payout.attempt?.startedAt ?? payout.createdAt,
  };
  const elapsed = now.getTime() - new Date(current.startedAt).getTime();
  const watched = payout.watchedAttempts ?? [];
  const [currentLook, ...earlierLooks] = await Promise.all([
    lookFor(ctx, payout, current, now, lookupDeadlineMs),
    ...watched.map((attempt) => lookFor(ctx, payout, attempt, now, lookupDeadlineMs)),
  ]);
  const spec = decideUnknown(ctx, payout, now, elapsed, currentLook as AttemptLook, earlierLooks);
  const after = await tryTransition(ctx, payout, spec);
  if (after?.status === PayoutStatus.Succeeded)
    ctx.metrics.count('PayoutAmountKobo', payout.amountKobo, { type: payout.instruction.type });
  if (after?.status === PayoutStatus.NeedsReview) reportNeedsReview(ctx, payout, after, spec.reason);
  else if (after && after.status !== payout.status) {
    ctx.logger.info('payout reconciled', {
      payoutId: payout.id,
      from: payout.status,
      to: after.status,
      reason: spec.reason,
    });
  }
  return after ?? payout;
}

function decideUnknown(
  ctx: EngineContext,
  payout: Payout,
  now: Date,
  elapsed: number,
  current: AttemptLook,
  earlier: readonly AttemptLook[],
): TransitionSpec {
  const all = [current, ...earlier];
  const ambiguous = all.filter(isAmbiguous);
  if (ambiguous.length > 0) {
    const details = ambiguous.map((look) => `attempt ${look.attempt.number}: ${look.outcome.detail}`);
    return needsReview(`the provider's records cannot be read as one payout: ${details.join(' | ')}`);
  }
  const found = all.filter(isFound);
  if (found.length >= 2) return paidTwiceSpec(payout, found);
  const [paying] = found;
  if (paying && paying.attempt.number === current.attempt.number) return succeeded(payout, paying);
  const currentAbsentForGood = current.outcome.kind === 'absent' && elapsed >= ctx.config.reconcileGraceMs;
  if (paying && currentAbsentForGood) {
    // The money moved by an earlier attempt whose record showed up late, and the current one is proved absent:
    // paid once. The current attempt is watched from now on, in case its record shows up late too.
    const stillWatched = (payout.watchedAttempts ?? []).filter((a) => a.number !== paying.attempt.number);
    return succeeded(payout, paying, [...stillWatched, watchCurrentAttempt(ctx, payout, now)]);
  }
  const failedLookup = all.find(isFailedLookup);
  if (failedLookup) {
    return elapsed >= ctx.config.reconcileGiveUpMs
      ? needsReview(
          `the provider could not be asked for ${Math.round(elapsed / 60_000)} min: ${failedLookup.outcome.message}`,
        )
      : recheck(
          ctx,
          payout,
          now,
          elapsed,
          `look-up failed (${failedLookup.outcome.code}); will look again`,
          // A failed look proves nothing: within twice the grace period (a transient fault on the listing) the
          // next one comes an interval later, so one failed look does not hold a payout back by half its age.
          elapsed < 2 * ctx.config.reconcileGraceMs
            ? now.getTime() + ctx.config.reconcileIntervalMs
            : undefined,
        );
  }
  if (!currentAbsentForGood) {
    const why = paying
      ? `attempt ${paying.attempt.number} found; waiting for attempt ${current.attempt.number} to be proved absent`
      : 'not found yet; within the grace period';
    // The next look is due no later than the grace period's end, when absence can first be proved: the wait
    // that grows with the time since the attempt would otherwise overshoot it by up to half the grace period.
    const graceEndsAt = Date.parse(current.attempt.startedAt) + ctx.config.reconcileGraceMs;
    return recheck(ctx, payout, now, elapsed, why, graceEndsAt);
  }
  return afterProvedAbsence(ctx, payout, now, elapsed);
}

function succeeded(
  payout: Payout,
  paying: FoundLook,
  watchedAttempts?: readonly WatchedAttempt[],
): TransitionSpec {
  const { outcome } = paying;
  const byEarlier = paying.attempt.number !== providerAttemptOf(payout);
  return {
    to: PayoutStatus.Succeeded,
    actor: reconciler,
    reason: byEarlier
      ? `found on the provider: attempt ${paying.attempt.number}'s record showed up late and the later attempt is proved absent; paid once`
      : `found on the provider: attempt ${paying.attempt.number} moved the money`,
    changes: {
      receipt: outcome.receipt,
      // Watched attempts, if any, are looked for from the watch queue right away.
      nextActionAt: undefined,
      ...(byEarlier && { paidByAttempt: paying.attempt.number }),
      ...(watchedAttempts && { watchedAttempts }),
    },
    details: {
      transactionId: outcome.receipt.transactionId,
      providerStatus: outcome.receipt.status,
      attempt: paying.attempt.number,
    },
  };
}

/**
 * The attempt is proved absent (grace period over, the window listed to its end). Below the attempt limit the
 * payout goes back to `pending` for a new attempt, whose marker carries its number, after a wait that doubles per
 * absent attempt; at the limit it fails. Either way the cap reservation is released (a new claim reserves again)
 * and the absent attempt is watched.
 */
function afterProvedAbsence(ctx: EngineContext, payout: Payout, now: Date, elapsed: number): TransitionSpec {
  const absent = watchCurrentAttempt(ctx, payout, now);
  const watchedAttempts = [...(payout.watchedAttempts ?? []), absent];
  const release = payout.capDay
    ? { capKey: payout.capKey, day: payout.capDay, deltaKobo: -payout.amountKobo }
    : undefined;
  const seconds = Math.round(elapsed / 1000);
  if (watchedAttempts.length >= ctx.config.maxAbsentAttempts) {
    const message = `no provider record of any of ${watchedAttempts.length} attempts (the last ${seconds} s after it); the money did not move`;
    return {
      to: PayoutStatus.Failed,
      actor: reconciler,
      reason: message,
      changes: {
        failure: { code: 'ABSENT_AT_PROVIDER', message },
        watchedAttempts,
        capDay: undefined,
        nextActionAt: addMs(now, ctx.config.reconcileIntervalMs),
      },
      ...(release && { cap: release }),
    };
  }
  const wait = ctx.config.retryBaseMs * 2 ** Math.min(watchedAttempts.length - 1, 10);
  return {
    to: PayoutStatus.Pending,
    actor: reconciler,
    reason: `attempt ${absent.number} proved absent (no provider record ${seconds} s after it); a new attempt with a new marker follows, its marker watched until ${absent.watchUntil}`,
    changes: { watchedAttempts, capDay: undefined, nextActionAt: addMs(now, wait) },
    details: { absentAttempt: absent.number, absentAttempts: watchedAttempts.length },
    ...(release && { cap: release }),
  };
}

function needsReview(reason: string): TransitionSpec {
  return { to: PayoutStatus.NeedsReview, actor: reconciler, reason, changes: { nextActionAt: undefined } };
}

/** Looks again after `recheckWait`, or at `notAfterMs` (epoch ms) when that comes first and is still ahead. */
function recheck(
  ctx: EngineContext,
  payout: Payout,
  now: Date,
  elapsed: number,
  reason: string,
  notAfterMs?: number,
): TransitionSpec {
  const wait = recheckWait(ctx, elapsed);
  const untilNotAfter = notAfterMs === undefined ? wait : notAfterMs - now.getTime();
  return {
    to: payout.status,
    actor: reconciler,
    reason,
    changes: { nextActionAt: addMs(now, untilNotAfter > 0 ? Math.min(wait, untilNotAfter) : wait) },
  };
}
