import { ConcurrentModificationError } from '../errors.js';
import type { FindOutcome } from '../gateway.js';
import { type Payout, PayoutStatus, systemPrincipal } from '../model.js';
import { WorkQueue } from '../store/table-design.js';
import { addMs, buildTransition, type EngineContext, type TransitionSpec } from './context.js';

const reconciler = systemPrincipal('reconciler');
const MAX_RECHECK_INTERVAL_MS = 60 * 60_000;
/** Provider records may carry a clock a little behind ours. */
const CLOCK_SKEW_MS = 5 * 60_000;

export interface ReconcileReport {
  readonly leasesExpired: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly needsReview: number;
  readonly stillUnknown: number;
  /** Payouts waiting in needs_review after this pass (a gauge: alarms fire while it stays above 0). */
  readonly openNeedsReview: number;
  /** Payouts still unknown after this pass. */
  readonly openUnknown: number;
}

const OPEN_COUNT_LIMIT = 1000;

/**
 * Decides payouts whose outcome is unknown, without ever resending them.
 *
 * 1. A payout left in `submitting` past its lease (a crash between the provider call and the state write)
 *    becomes `unknown`.
 * 2. Each `unknown` payout due for a look is searched on the provider by the marker in its narration:
 *    found -> `succeeded` with the provider's ids; absent once the grace period is over -> `failed`;
 *    several records, or no answer for too long -> `needs_review`, which alerts a person.
 */
export interface ReconcileOptions {
  readonly limit?: number;
  /** Start no new look-up after this instant (epoch ms on the real clock), so the Lambda is not cut off mid-write. */
  readonly stopStartingAt?: number;
}

export async function reconcilePayouts(
  ctx: EngineContext,
  options: ReconcileOptions = {},
): Promise<ReconcileReport> {
  const limit = options.limit ?? 100;
  const now = ctx.clock.now();
  const outOfTime = () => options.stopStartingAt !== undefined && Date.now() >= options.stopStartingAt;
  let leasesExpired = 0;
  for (const payout of await ctx.store.due(WorkQueue.LeaseExpiry, now.toISOString(), limit)) {
    if (outOfTime()) break;
    if (await expireLease(ctx, payout)) leasesExpired++;
  }
  const tally = { succeeded: 0, failed: 0, needsReview: 0, stillUnknown: 0 };
  for (const payout of await ctx.store.due(WorkQueue.Reconcile, ctx.clock.now().toISOString(), limit)) {
    if (outOfTime()) break;
    const status = await reconcileOne(ctx, payout);
    if (status === PayoutStatus.Succeeded) tally.succeeded++;
    else if (status === PayoutStatus.Failed) tally.failed++;
    else if (status === PayoutStatus.NeedsReview) tally.needsReview++;
    else tally.stillUnknown++;
  }
  const [openNeedsReview, openUnknown] = await Promise.all([
    ctx.store.countByStatus(PayoutStatus.NeedsReview, OPEN_COUNT_LIMIT),
    ctx.store.countByStatus(PayoutStatus.Unknown, OPEN_COUNT_LIMIT),
  ]);
  ctx.metrics.count('PayoutsOpenNeedsReview', openNeedsReview);
  ctx.metrics.count('PayoutsOpenUnknown', openUnknown);
  const report = { leasesExpired, ...tally, openNeedsReview, openUnknown };
  if (Object.values(report).some((count) => count > 0)) ctx.logger.info('reconciliation pass', { ...report });
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
    reason: `lease of attempt ${payout.attempt.number} expired at ${payout.attempt.leaseUntil} with no recorded outcome`,
    changes: { nextActionAt: now.toISOString() },
  }).then((after) => after !== undefined);
}

/** Looks one unknown payout up on the provider and records what that proves. Returns the resulting status. */
export async function reconcileOne(ctx: EngineContext, payout: Payout): Promise<PayoutStatus> {
  if (payout.status !== PayoutStatus.Unknown) return payout.status;
  const now = ctx.clock.now();
  const startedAt = new Date(payout.attempt?.startedAt ?? payout.createdAt);
  const elapsed = now.getTime() - startedAt.getTime();
  const found = await findSafely(ctx, payout, {
    from: addMs(startedAt, -CLOCK_SKEW_MS),
    to: addMs(now, CLOCK_SKEW_MS),
  });

  let spec: TransitionSpec;
  switch (found.kind) {
    case 'found':
      spec = {
        to: PayoutStatus.Succeeded,
        actor: reconciler,
        reason: 'found on the provider: the money moved',
        changes: { receipt: found.receipt, nextActionAt: undefined },
        details: { transactionId: found.receipt.transactionId, providerStatus: found.receipt.status },
      };
      break;
    case 'ambiguous':
      spec = needsReview(`the provider's records cannot be read as one payout: ${found.detail}`);
      break;
    case 'absent':
      if (elapsed >= ctx.config.reconcileGraceMs) {
        const message = `no provider record ${Math.round(elapsed / 1000)} s after the attempt; the money did not move`;
        spec = {
          to: PayoutStatus.Failed,
          actor: reconciler,
          reason: message,
          changes: { failure: { code: 'ABSENT_AT_PROVIDER', message }, nextActionAt: undefined },
          ...(payout.capDay && {
            cap: { capKey: payout.capKey, day: payout.capDay, deltaKobo: -payout.amountKobo },
          }),
        };
      } else {
        spec = recheck(ctx, payout, now, elapsed, 'not found yet; within the grace period');
      }
      break;
    case 'lookup_failed':
      spec =
        elapsed >= ctx.config.reconcileGiveUpMs
          ? needsReview(
              `the provider could not be asked for ${Math.round(elapsed / 60_000)} min: ${found.message}`,
            )
          : recheck(ctx, payout, now, elapsed, `look-up failed (${found.code}); will look again`);
      break;
  }
  const after = await tryTransition(ctx, payout, spec);
  if (after?.status === PayoutStatus.Succeeded)
    ctx.metrics.count('PayoutAmountKobo', payout.amountKobo, { type: payout.instruction.type });
  if (after?.status === PayoutStatus.NeedsReview) {
    ctx.metrics.count('PayoutNeedsReview');
    ctx.logger.error('payout needs review', {
      payoutId: payout.id,
      idempotencyKey: payout.idempotencyKey,
      reason: spec.reason,
    });
  }
  return after?.status ?? PayoutStatus.Unknown;
}

function needsReview(reason: string): TransitionSpec {
  return { to: PayoutStatus.NeedsReview, actor: reconciler, reason, changes: { nextActionAt: undefined } };
}

function recheck(
  ctx: EngineContext,
  payout: Payout,
  now: Date,
  elapsed: number,
  reason: string,
): TransitionSpec {
  const wait = Math.min(MAX_RECHECK_INTERVAL_MS, Math.max(ctx.config.reconcileIntervalMs, elapsed / 2));
  return {
    to: payout.status,
    actor: reconciler,
    reason,
    changes: { nextActionAt: addMs(now, wait) },
  };
}

async function findSafely(
  ctx: EngineContext,
  payout: Payout,
  window: { from: string; to: string },
): Promise<FindOutcome> {
  try {
    return await ctx.gateway.find(payout, window);
  } catch (error) {
    return {
      kind: 'lookup_failed',
      code: 'GATEWAY_ERROR',
      message: error instanceof Error ? error.message : 'failed',
    };
  }
}

async function tryTransition(
  ctx: EngineContext,
  payout: Payout,
  spec: TransitionSpec,
): Promise<Payout | undefined> {
  try {
    return await ctx.store.transition(buildTransition(payout, spec, ctx.clock.now()));
  } catch (error) {
    if (error instanceof ConcurrentModificationError) return undefined;
    throw error;
  }
}
