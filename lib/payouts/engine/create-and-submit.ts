import { DailyCapExceededError } from '../../controls/index.js';
import { IdempotencyKeyContestedError } from '../../shared/idempotent-create.js';
import { type SendWindow, sendWindowPassed } from '../../shared/send-window.js';
import { PayoutStatus } from '../model.js';
import { buildTransition, type EngineContext, type SendingContext } from './context.js';
import {
  type CreatePayoutCommand,
  type CreatePayoutResult,
  createPayout,
  prepareCreation,
  settleCreation,
} from './create-payout.js';
import {
  type Claimed,
  claimSpec,
  pausedNow,
  prepareWhileWriting,
  releaseUnsentClaim,
  type SubmitResult,
  sendClaimed,
  submitPayout,
  unlessPaused,
} from './submit-payout.js';

const TOO_LATE = 'send window passed';

/** Sends a claim inside `window`; a claim too late to send is given back unsent (cap released, attempt not counted). */
async function sendWithin(
  ctx: SendingContext,
  claimed: Claimed,
  window: SendWindow | undefined,
): Promise<SubmitResult> {
  if (sendWindowPassed(window)) {
    return { kind: 'skipped', payout: await releaseUnsentClaim(ctx, claimed, TOO_LATE), why: TOO_LATE };
  }
  return (await sendClaimed(ctx, claimed, window && { deadlineMs: window.deadlineMs })).recording;
}

export interface CreateAndSubmitOptions {
  /**
   * A replay whose payout is still `pending` is submitted too (a redelivered event whose first delivery stopped
   * before sending); the claim keeps it exactly-once. The API does not: its replay answers what exists.
   */
  readonly submitReplayed?: boolean;
  /**
   * The caller's bound on the send (the API's request deadline, lib/api/request-deadline.ts): past `sendBy`
   * nothing is sent here and the payout is left pending, without the creator's hold, for the sweeper.
   */
  readonly sendWindow?: SendWindow;
}

/** A create by a caller that sends the payout itself: what was created (or replayed), and what its send did. */
export interface CreateAndSubmitResult extends CreatePayoutResult {
  /** The submission made here; undefined for a replay, a payout not yet sendable, or a failed inline send. */
  readonly submitted?: SubmitResult;
}

/**
 * Creates a payout and sends it at once, as the API and the `Payout Requested` event do. A payout that can go
 * now is created already claimed: the creation, its claim, both audit events and the daily-cap reservation are
 * one transaction, so the payout is written once before the provider call instead of twice (docs/data-model.md,
 * "Write cost"). Then, as for every claim, the pause is read and only an unpaused claim is sent.
 *
 * Anything else takes the two steps (create pending with the creator's hold, then submit): a payout that waits
 * (approval, schedule), one above the daily cap by itself, a day whose cap it would pass (it fails as
 * `DAILY_CAP_EXCEEDED` there, as always), a create-and-claim that kept colliding with other transactions (on the
 * hot cap counter) and payouts known to be paused. A create that fails otherwise fails
 * the request, as before (the caller retries with the same key; a claimed payout nobody sent is found by the
 * reconciler when its lease ends). A failed send never fails the create: the payout is recorded, and the
 * sweeper or the reconciler takes it on.
 *
 * @example
 * const { payout, replayed } = await createAndSubmit(ctx, { request, idempotencyKey: 'inv-9', origin: 'api', actor });
 */
export async function createAndSubmit(
  ctx: SendingContext,
  command: CreatePayoutCommand,
  options: CreateAndSubmitOptions = {},
): Promise<CreateAndSubmitResult> {
  const window = options.sendWindow;
  if (sendWindowPassed(window)) {
    // Too late to send before the caller must answer: created pending, no hold, the sweeper's to send.
    return createPayout(ctx, command);
  }
  const inline = { ...command, submitsInline: true };
  // With a window, the two steps create no creator's hold: a payout this call does not send (paused, past the
  // window) is the sweeper's at once; a sweeper racing this call for it is met by the claim.
  const twoSteps = window ? command : inline;
  const now = ctx.clock.now();
  const { payout, audit } = prepareCreation(ctx, inline, now);
  if (
    payout.status !== PayoutStatus.Pending ||
    payout.amountKobo > ctx.config.dailyCapKobo ||
    (ctx.pause.lastSeenPaused && (await pausedNow(ctx)))
  ) {
    return createThenSubmit(ctx, twoSteps, options);
  }
  const spec = claimSpec(ctx, payout, now);
  const claim = buildTransition(payout, spec, now);
  const creating = ctx.store.create(
    claim.after,
    audit,
    { audit: claim.audit, cap: spec.cap },
    command.companion?.(claim.after),
  );
  // As for any claim: the gateway gets ready while the write is on its way.
  prepareWhileWriting(ctx);
  const outcome = await creating.catch((error: unknown) => {
    // A full cap, or a transaction that kept colliding (the cap counter is hot): the two steps, as before.
    if (error instanceof DailyCapExceededError || error instanceof IdempotencyKeyContestedError)
      return undefined;
    throw error;
  });
  if (!outcome) return createThenSubmit(ctx, twoSteps, options);
  // The key may name our own payout: the SDK retried a create that had committed (its answer lost). It is then
  // ours to send: under its lease, nobody else moves it.
  const ours = outcome.created || outcome.existing.id === claim.after.id;
  const created = settleCreation(
    ctx,
    inline,
    claim.after,
    ours ? { created: true, payout: claim.after } : outcome,
  );
  if (created.replayed) return submitIfPending(ctx, created, options);
  return sendInline(ctx, created, async () => {
    const checked = await unlessPaused(ctx, { kind: 'claimed', payout: created.payout });
    return checked.kind === 'claimed' ? sendWithin(ctx, checked, window) : checked;
  });
}

/** The two steps: create (pending, held for its creator), then submit when it is pending. */
async function createThenSubmit(
  ctx: SendingContext,
  command: CreatePayoutCommand,
  options: CreateAndSubmitOptions,
): Promise<CreateAndSubmitResult> {
  return submitIfPending(ctx, await createPayout(ctx, command), options);
}

/**
 * Submits a payout its creator holds when it is `pending` (a replay only with `submitReplayed`); a failed send is
 * logged, never thrown: the payout is recorded, and the sweeper or the reconciler takes it on.
 */
export function submitIfPending(
  ctx: SendingContext,
  created: CreatePayoutResult,
  options: CreateAndSubmitOptions = {},
): CreateAndSubmitResult | Promise<CreateAndSubmitResult> {
  // A caller with a send window (the API) sends only a payout created already claimed; one that took the two
  // steps (paused, above the cap, a contested create) was created without a hold, for the sweeper's next tick.
  if (
    (created.replayed && !options.submitReplayed) ||
    created.payout.status !== PayoutStatus.Pending ||
    options.sendWindow
  ) {
    return created;
  }
  return sendInline(ctx, created, () => submitPayout(ctx, created.payout));
}

/** The creator's send: its failure never fails the create (the payout is recorded; the sweeper or reconciler goes on). */
async function sendInline(
  ctx: EngineContext,
  created: CreatePayoutResult,
  send: () => Promise<SubmitResult>,
): Promise<CreateAndSubmitResult> {
  try {
    const submitted = await send();
    return { ...created, payout: submitted.payout, submitted };
  } catch (error) {
    ctx.logger.warn('inline submission failed', {
      payoutId: created.payout.id,
      error: error instanceof Error ? error.message : String(error),
    });
    return created;
  }
}
