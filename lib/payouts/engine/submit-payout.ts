import { DailyCapExceededError, systemPrincipal } from '../../controls/index.js';
import { ConcurrentModificationError } from '../../shared/errors.js';
import { ulid } from '../../shared/ids.js';
import { calendarDayIn } from '../../shared/wall-clock.js';
import type { SendOptions, SendOutcome } from '../gateway.js';
import { type Payout, PayoutStatus } from '../model.js';
import type { CapChange } from '../store/payout-store.js';
import {
  addMs,
  buildTransition,
  type EngineContext,
  type SendingContext,
  type TransitionSpec,
} from './context.js';

const submitter = systemPrincipal('submitter');
const RECORD_ATTEMPTS = 3;

/** What a submission did; `payout` is the latest state known to this call. */
export type SubmitResult =
  | { readonly kind: 'sent'; readonly payout: Payout; readonly outcome: SendOutcome['kind'] }
  /** Nothing was sent by this call: not pending, not due yet, paused, or claimed by someone else. */
  | { readonly kind: 'skipped'; readonly payout: Payout; readonly why: string };

/**
 * Sends one pending payout to the provider, at most once.
 *
 * The payout is first claimed (pending -> submitting, with a lease and the daily cap in the same transaction),
 * the pause is read once the claim committed, and only a claim made while not paused calls the provider. Whatever the provider answers is then
 * recorded; when the answer cannot be read as paid or refused, the payout becomes `unknown` and only the
 * reconciler decides it. Nothing here ever sends a payout that was claimed before.
 */
export async function submitPayout(ctx: SendingContext, payout: Payout): Promise<SubmitResult> {
  const claimed = await claimForSubmission(ctx, payout, { byCreator: true });
  if (claimed.kind === 'claimed') return (await sendClaimed(ctx, claimed)).recording;
  if (claimed.why === PAUSED && heldForCreator(ctx, claimed.payout)) return releaseHold(ctx, claimed);
  return claimed;
}

const PAUSED = 'payouts are paused';

/** Still inside the hold set at creation for the creator's own submission (see `submitsInline`). */
function heldForCreator(ctx: EngineContext, payout: Payout): boolean {
  return (
    payout.status === PayoutStatus.Pending &&
    payout.submissionCount === 0 &&
    payout.nextActionAt !== undefined &&
    payout.nextActionAt > ctx.clock.now().toISOString()
  );
}

/**
 * The creator could not send its payout because payouts are paused (known before claiming, so nothing was
 * written): lift the hold, so the sweeper sends it as soon as they resume instead of after the hold. A claim
 * given back because of the pause has already dropped the hold with the claim.
 */
async function releaseHold(
  ctx: EngineContext,
  skipped: Extract<SubmitResult, { kind: 'skipped' }>,
): Promise<Extract<SubmitResult, { kind: 'skipped' }>> {
  try {
    const released = await ctx.store.transition(
      buildTransition(
        skipped.payout,
        {
          to: PayoutStatus.Pending,
          actor: submitter,
          reason: 'payouts are paused: nothing was sent; the sweeper sends it when they resume',
          changes: { nextActionAt: undefined },
        },
        ctx.clock.now(),
      ),
    );
    return { ...skipped, payout: released };
  } catch (error) {
    if (!(error instanceof ConcurrentModificationError)) throw error;
    return skipped;
  }
}

/**
 * Why a claim refused with the payout still `pending` at the version it was read at: nobody moved it, the
 * transaction lost to contention (conflicts on the shared cap counter past the store's retries) or throttling.
 * A queue worker hands such a request back for a prompt redelivery rather than drop it (the next tick's request
 * for the same version would be deduplicated for five minutes).
 */
export const CLAIM_CONTENDED = 'the claim was refused for contention; nothing changed';

/** What a claim made for the sweeper's workers gives back: a payout in `submitting`, ready to send. */
export type Claimed = { readonly kind: 'claimed'; readonly payout: Payout };

/**
 * A claim committed whose pause read is still to come: not a `Claimed`, so it cannot be sent until
 * `unlessPaused` has read the pause and answered the claim (or given it back).
 */
export type ClaimAwaitingPause = { readonly kind: 'awaiting-pause'; readonly payout: Payout };

/**
 * Claims a pending, due payout (pending -> submitting, with the daily cap; then the pause), sending nothing.
 * `byCreator`: the explicit submission right after creation, which the hold for inline submission is for; a
 * payout never attempted has no other reason to wait.
 */
export async function claimForSubmission(
  ctx: SendingContext,
  payout: Payout,
  options: { byCreator?: boolean } = {},
): Promise<Claimed | Extract<SubmitResult, { kind: 'skipped' }>> {
  const claimed = await claimLeavingPause(ctx, payout, options);
  return claimed.kind === 'awaiting-pause' ? unlessPaused(ctx, claimed) : claimed;
}

/**
 * `claimForSubmission` without its last step, the pause read after the commit: the caller reads it with
 * `unlessPaused` (alongside other work of its own, such as reserving the send slot) before anything is sent.
 */
export async function claimLeavingPause(
  ctx: SendingContext,
  payout: Payout,
  options: { byCreator?: boolean } = {},
): Promise<ClaimAwaitingPause | Extract<SubmitResult, { kind: 'skipped' }>> {
  if (payout.status !== PayoutStatus.Pending)
    return { kind: 'skipped', payout, why: `status is ${payout.status}` };
  const now = ctx.clock.now();
  const ignoresCreatorHold = options.byCreator === true && payout.submissionCount === 0;
  if (!ignoresCreatorHold && payout.nextActionAt && payout.nextActionAt > now.toISOString()) {
    return { kind: 'skipped', payout, why: `next attempt not before ${payout.nextActionAt}` };
  }
  return claim(ctx, payout, now);
}

/**
 * Sends a claimed payout once and hands back the recording of the outcome as a promise, so a sweep worker can
 * go on while the write completes. The caller must await every `recording` before it returns; until then the
 * payout is safe in `submitting` under its lease.
 */
export async function sendClaimed(
  ctx: SendingContext,
  claimed: Claimed,
  options?: SendOptions,
): Promise<{ kind: 'sent'; recording: Promise<SubmitResult>; outcome: SendOutcome }> {
  const payout = claimed.payout;
  const started = Date.now();
  const outcome = await sendSafely(ctx, payout, options);
  const ms = Date.now() - started;
  ctx.metrics.timing('ProviderCallLatency', ms, { outcome: outcome.kind });
  ctx.metrics.count(`PayoutSubmission_${outcome.kind}`, 1, { type: payout.instruction.type });
  ctx.logger.info('provider answered', {
    payoutId: payout.id,
    idempotencyKey: payout.idempotencyKey,
    outcome: outcome.kind,
    ...(outcome.kind !== 'succeeded' && { code: outcome.code }),
    ms,
  });
  // Started after this turn's I/O callbacks, so a sweep worker's next provider request goes out first: the
  // provider call is what a worker waits on, the write is not.
  const recording = afterPendingIo(() => recordOutcome(ctx, payout, outcome)).then(
    (recorded): SubmitResult => {
      if (recorded.status === PayoutStatus.Succeeded) {
        ctx.metrics.count('PayoutAmountKobo', recorded.amountKobo, { type: recorded.instruction.type });
      }
      return { kind: 'sent', payout: recorded, outcome: outcome.kind };
    },
  );
  return { kind: 'sent', recording, outcome };
}

/**
 * Once the claim just asked for is on its way (`afterWriteSent`), the gateway gets ready for the send that
 * follows: on a cold start, loading the HTTP client, opening the connection and fetching the provider's
 * credentials, which overlap the claim's round trip instead of following it. (A claim that is its client's first
 * request is written once its connection opens, after that loading: see `nextRequestSent`.) Only a head start:
 * whatever it would have failed on, the send meets and records.
 */
export function prepareWhileWriting(ctx: SendingContext): void {
  (ctx.store.afterWriteSent?.() ?? afterPendingIo(async () => undefined))
    .then(() => ctx.gateway.prepare?.())
    .catch(() => undefined);
}

/** Runs `work` once the I/O callbacks and promise jobs already queued have run (the event loop's check phase). */
export function afterPendingIo<T>(work: () => Promise<T>): Promise<T> {
  return new Promise<void>((resolve) => setImmediate(resolve)).then(work);
}

/**
 * Gives back a claim whose payout was never sent (the sweep claimed it ahead and then ran out of time): back to
 * `pending`, its daily-cap amount released and the attempt not counted, so the next tick sends it as usual.
 */
export async function releaseUnsentClaim(
  ctx: EngineContext,
  claimed: Claimed | ClaimAwaitingPause,
  why: string,
): Promise<Payout> {
  const payout = claimed.payout;
  const now = ctx.clock.now();
  const spec: TransitionSpec = {
    to: PayoutStatus.Pending,
    actor: submitter,
    reason: `claim released, nothing was sent: ${why}`,
    changes: { attempt: undefined, submissionCount: payout.submissionCount - 1, capDay: undefined },
    ...(payout.capDay && {
      cap: { capKey: payout.capKey, day: payout.capDay, deltaKobo: -payout.amountKobo },
    }),
  };
  return ctx.store.transition(buildTransition(payout, spec, now));
}

/** The claim of a pending payout: pending -> submitting with a new attempt and its lease, reserving the cap. */
export function claimSpec(
  ctx: EngineContext,
  payout: Payout,
  now: Date,
): TransitionSpec & { readonly cap: CapChange } {
  const capDay = calendarDayIn(ctx.config.capTimeZone, now);
  return {
    to: PayoutStatus.Submitting,
    actor: submitter,
    reason: `claimed for submission attempt ${payout.submissionCount + 1}`,
    changes: {
      attempt: {
        attemptId: ulid(now),
        number: payout.submissionCount + 1,
        startedAt: now.toISOString(),
        leaseUntil: addMs(now, ctx.config.submitLeaseMs),
        // A new marker only after an attempt was proved absent: a claim answered "not sent" reached nobody.
        providerAttempt: (payout.watchedAttempts?.length ?? 0) + 1,
      },
      submissionCount: payout.submissionCount + 1,
      capDay,
      nextActionAt: undefined,
    },
    cap: {
      capKey: payout.capKey,
      day: capDay,
      deltaKobo: payout.amountKobo,
      limitKobo: ctx.config.dailyCapKobo,
    },
  };
}

async function claim(
  ctx: SendingContext,
  payout: Payout,
  now: Date,
): Promise<ClaimAwaitingPause | Extract<SubmitResult, { kind: 'skipped' }>> {
  const spec = claimSpec(ctx, payout, now);
  if (payout.amountKobo > ctx.config.dailyCapKobo) return failForCap(ctx, payout, now);
  if (ctx.pause.lastSeenPaused && (await pausedNow(ctx))) return { kind: 'skipped', payout, why: PAUSED };
  const claiming = ctx.store.transition(buildTransition(payout, spec, now));
  prepareWhileWriting(ctx);
  let claimed: Payout;
  try {
    claimed = await claiming;
  } catch (error) {
    if (error instanceof DailyCapExceededError) {
      // Paused meanwhile: the payout waits for the resume (perhaps another day, another cap) instead of failing.
      if (await pausedNow(ctx)) return { kind: 'skipped', payout, why: PAUSED };
      return failForCap(ctx, payout, now);
    }
    if (error instanceof ConcurrentModificationError) {
      const current = (await ctx.store.get(payout.id)) ?? payout;
      // Our own claim, committed by a request whose answer was lost and then refused on the SDK's retry: the
      // payout is ours to send. Treating it as someone else's would leave it unsent until its lease ran out.
      const ours = spec.changes?.attempt?.attemptId;
      if (!(current.status === PayoutStatus.Submitting && ours && current.attempt?.attemptId === ours)) {
        const unchanged = current.status === PayoutStatus.Pending && current.version === payout.version;
        return {
          kind: 'skipped',
          payout: current,
          why: unchanged ? CLAIM_CONTENDED : 'claimed or changed concurrently',
        };
      }
      claimed = current;
    } else throw error;
  }
  return { kind: 'awaiting-pause', payout: claimed };
}

/**
 * The pause as a claim checks it: a strongly consistent read of the controls item, started once the claim
 * committed. A pause that landed before the claim is seen, so once `pausePayouts` returns no payout claimed
 * afterwards reaches the provider, as with the ConditionCheck the claim's transaction used to carry (2 write
 * units a claim); one landing between the claim and the read stops it too. See docs/data-model.md.
 */
export async function pausedNow(
  ctx: EngineContext,
  options: { signal?: AbortSignal } = {},
): Promise<boolean> {
  const { paused } = await ctx.store.getControls(options);
  ctx.pause.lastSeenPaused = paused;
  return paused;
}

/**
 * After a claim committed: paused, the claim is given back unsent (cap released, attempt not counted) and the
 * sweeper sends the payout once payouts resume.
 */
export async function unlessPaused(
  ctx: EngineContext,
  claimed: Claimed | ClaimAwaitingPause,
  options: { signal?: AbortSignal } = {},
): Promise<Claimed | Extract<SubmitResult, { kind: 'skipped' }>> {
  if (!(await pausedNow(ctx, options))) return { kind: 'claimed', payout: claimed.payout };
  return { kind: 'skipped', payout: await releaseUnsentClaim(ctx, claimed, PAUSED), why: PAUSED };
}

async function failForCap(
  ctx: EngineContext,
  payout: Payout,
  now: Date,
): Promise<Extract<SubmitResult, { kind: 'skipped' }>> {
  const message = `the daily cap of ${ctx.config.dailyCapKobo} kobo for ${payout.capKey} would be exceeded; nothing was sent`;
  ctx.logger.warn('daily cap exceeded', { payoutId: payout.id, capKey: payout.capKey });
  ctx.metrics.count('DailyCapExceeded');
  try {
    const failed = await ctx.store.transition(
      buildTransition(
        payout,
        {
          to: PayoutStatus.Failed,
          actor: submitter,
          reason: message,
          changes: { failure: { code: 'DAILY_CAP_EXCEEDED', message } },
        },
        now,
      ),
    );
    return { kind: 'skipped', payout: failed, why: message };
  } catch (error) {
    if (!(error instanceof ConcurrentModificationError)) throw error;
    return {
      kind: 'skipped',
      payout: (await ctx.store.get(payout.id)) ?? payout,
      why: 'changed concurrently',
    };
  }
}

/** The gateway returns outcomes; anything it throws is a bug, and a bug after sending must read as "unknown". */
async function sendSafely(ctx: SendingContext, payout: Payout, options?: SendOptions): Promise<SendOutcome> {
  try {
    return await ctx.gateway.send(payout, options);
  } catch (error) {
    ctx.logger.error('gateway threw instead of returning an outcome', {
      payoutId: payout.id,
      error: error instanceof Error ? error.name : 'unknown',
    });
    return {
      kind: 'unknown',
      code: 'GATEWAY_ERROR',
      message: error instanceof Error ? error.message : 'gateway failed',
    };
  }
}

/** The transition that records a provider outcome for a payout in `submitting`. */
export function outcomeTransition(
  ctx: EngineContext,
  claimed: Payout,
  outcome: SendOutcome,
  now: Date,
): TransitionSpec {
  const release = claimed.capDay
    ? { capKey: claimed.capKey, day: claimed.capDay, deltaKobo: -claimed.amountKobo }
    : undefined;
  switch (outcome.kind) {
    case 'succeeded':
      return {
        to: PayoutStatus.Succeeded,
        actor: submitter,
        reason: 'the provider confirmed the payout',
        changes: { receipt: outcome.receipt },
        details: { transactionId: outcome.receipt.transactionId, providerStatus: outcome.receipt.status },
      };
    case 'rejected':
      return {
        to: PayoutStatus.Failed,
        actor: submitter,
        reason: `the provider refused the payout: ${outcome.message}`,
        changes: { failure: { code: outcome.code, message: outcome.message } },
        ...(release && { cap: release }),
      };
    case 'not_sent': {
      if (outcome.rateLimited) {
        // The provider's rate limit, shared by the fleet, not a fault of this payout: the attempt is not
        // counted, so a long 429 spell never fails a payout; it goes again once the Retry-After has passed.
        return {
          to: PayoutStatus.Pending,
          actor: submitter,
          reason: `nothing was sent (rate limited by the provider); will try again, attempt not counted`,
          changes: {
            nextActionAt: addMs(now, outcome.retryAfterMs ?? ctx.config.retryBaseMs),
            rateLimitedCount: (claimed.rateLimitedCount ?? 0) + 1,
            // Released with the claim: a payout holds a cap day only while it holds its reservation.
            capDay: undefined,
          },
          details: { code: outcome.code },
          ...(release && { cap: release }),
        };
      }
      if (claimed.submissionCount - (claimed.rateLimitedCount ?? 0) >= ctx.config.maxSubmissionAttempts) {
        const message = `the provider could not take the payout after ${claimed.submissionCount} attempts: ${outcome.message}`;
        return {
          to: PayoutStatus.Failed,
          actor: submitter,
          reason: message,
          changes: { failure: { code: outcome.code, message } },
          ...(release && { cap: release }),
        };
      }
      const backoff = Math.max(
        outcome.retryAfterMs ?? 0,
        ctx.config.retryBaseMs * 2 ** Math.min(claimed.submissionCount - 1, 10),
      );
      return {
        to: PayoutStatus.Pending,
        actor: submitter,
        reason: `nothing was sent (${outcome.message}); will try again`,
        changes: { nextActionAt: addMs(now, backoff), capDay: undefined },
        details: { code: outcome.code },
        ...(release && { cap: release }),
      };
    }
    case 'unknown':
      return {
        to: PayoutStatus.Unknown,
        actor: submitter,
        reason: `the provider may have acted (${outcome.message}); reconciliation decides, the payout is never resent`,
        changes: { nextActionAt: addMs(now, ctx.config.reconcileIntervalMs) },
        details: { code: outcome.code },
      };
  }
}

async function recordOutcome(ctx: EngineContext, claimed: Payout, outcome: SendOutcome): Promise<Payout> {
  for (let attempt = 1; ; attempt++) {
    const now = ctx.clock.now();
    try {
      return await ctx.store.transition(
        buildTransition(claimed, outcomeTransition(ctx, claimed, outcome, now), now),
      );
    } catch (error) {
      if (error instanceof ConcurrentModificationError) {
        const current = await ctx.store.get(claimed.id);
        if (!unchangedSinceClaim(current, claimed))
          return recordAfterConflict(ctx, claimed, outcome, current);
        // Nobody moved the payout: the write was refused for contention (a release meets the claims on the
        // same cap counter) or throttling, not for its condition. Try again, as for an unreachable store; if
        // it stays refused, fail, so the outcome is never reported as recorded while it was not.
      }
      // The store is unreachable: retry a little; if it stays down the lease expires and reconciliation
      // finds the provider's record, so the outcome is not lost, only late.
      ctx.logger.error('could not record the provider outcome', {
        payoutId: claimed.id,
        attempt,
        outcome: outcome.kind,
      });
      if (attempt >= RECORD_ATTEMPTS) throw error;
    }
  }
}

/** Still as our claim left it: in `submitting`, at the claim's version, under our attempt. */
function unchangedSinceClaim(current: Payout | undefined, claimed: Payout): boolean {
  return (
    current !== undefined &&
    current.status === PayoutStatus.Submitting &&
    current.version === claimed.version &&
    current.attempt?.attemptId === claimed.attempt?.attemptId
  );
}

/**
 * The payout moved on since the claim: the lease ran out while the provider was answering and the reconciler
 * moved it, or our own write landed and its answer was lost.
 */
async function recordAfterConflict(
  ctx: EngineContext,
  claimed: Payout,
  outcome: SendOutcome,
  current: Payout | undefined,
): Promise<Payout> {
  if (!current) throw new ConcurrentModificationError('payout', claimed.id);
  if (current.status !== PayoutStatus.Unknown || current.attempt?.attemptId !== claimed.attempt?.attemptId) {
    return current;
  }
  if (outcome.kind !== 'succeeded' && outcome.kind !== 'rejected') return current;
  const now = ctx.clock.now();
  const spec = outcomeTransition(ctx, current, outcome, now);
  try {
    return await ctx.store.transition(
      buildTransition(
        current,
        { ...spec, reason: `${spec.reason} (answer arrived after the lease expired)` },
        now,
      ),
    );
  } catch (error) {
    if (error instanceof ConcurrentModificationError) return (await ctx.store.get(claimed.id)) ?? current;
    throw error;
  }
}
