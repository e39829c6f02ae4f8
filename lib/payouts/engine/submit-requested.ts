import { timeoutSignal } from '../../shared/deadline.js';
import { withLogContext } from '../../shared/log-context.js';
import { inSpan, SpanKinds } from '../../shared/tracing.js';
import { PayoutStatus } from '../model.js';
import { MAX_SEND_LATENESS_MS, type ProviderRateLimiter } from '../queue/rate-limiter.js';
import type { SubmissionRequest } from '../queue/submission-queue.js';
import type { EngineContext, SendingContext } from './context.js';
import {
  CLAIM_CONTENDED,
  type ClaimAwaitingPause,
  type Claimed,
  claimForSubmission,
  claimLeavingPause,
  releaseUnsentClaim,
  type SubmitResult,
  sendClaimed,
  unlessPaused,
} from './submit-payout.js';

/** What a worker did with one request: sent, skipped (nothing sent), or deferred (not started: try again). */
export type RequestedSubmitResult =
  | SubmitResult
  | { readonly kind: 'deferred'; readonly payoutId: string; readonly why: string };

/**
 * The longest a claimed payout waits for its send slot. Beyond it (a long Retry-After, a fleet far ahead of
 * the limit) the claim is given back unsent and the next tick enqueues the payout again: the wait stays well
 * inside the claim's lease and the worker's timeout (test/infra/handler-limits.test.ts).
 */
export const MAX_SLOT_WAIT_MS = 15_000;

/**
 * The longest the pause's second read (a payout that waited for its slot) may take. Past it the claim is given
 * back unsent, as when paused: a send must not wait on a slow read, and the worker's worst case counts this
 * bound, not a whole DynamoDB call (test/infra/handler-limits.test.ts).
 */
export const PAUSE_RECHECK_DEADLINE_MS = 1_000;

/**
 * 429s one invocation rides out for a payout (claiming it again once the Retry-After has passed) before it
 * leaves the payout to the next tick: a 429 costs the payout a second, not a sweeper tick.
 */
export const MAX_RATE_LIMITED_RETRIES = 3;

/**
 * Slots one send takes at most: a send that finds its slot passed by more than MAX_SEND_LATENESS_MS takes a new
 * one, once; if it misses that too it leaves late (the machine is too loaded to keep time, a 429 never fails a
 * payout, and every replacement is one more write to the pacer's single item, which all workers share).
 */
export const MAX_SLOTS_PER_SEND = 2;

/** The fleet's pause after a 429 that named no Retry-After. */
const DEFAULT_COOL_DOWN_MS = 1_000;

export interface SubmitRequestedOptions {
  /** Claim nothing after this instant (epoch ms on the real clock): the request is deferred, not dropped. */
  readonly stopStartingAt?: number;
  /** The provider's fleet-wide rate limit: every send waits for its slot; a 429 pushes all slots back. */
  readonly limiter?: ProviderRateLimiter;
  /** Waits `ms` (a real timer by default). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Epoch ms, for the slots (`Date.now` by default). */
  readonly now?: () => number;
}

type Step = RequestedSubmitResult | ClaimAwaitingPause;

/**
 * Submits the payouts named by a batch of queued requests, all at once: each is read and claimed (the
 * exactly-once gate: a request for a payout already claimed, sent or no longer pending sends nothing); then each
 * claim's pause is read while the batch reserves its send slots from the fleet's rate limiter in one go, and
 * each payout not paused is sent at its slot and its outcome recorded. Results are in the order of `requests`;
 * a request whose read, claim, pause read or recording threw is a rejected entry, so the caller can hand
 * exactly that message back to the queue.
 */
export async function submitRequested(
  ctx: SendingContext,
  requests: readonly SubmissionRequest[],
  options: SubmitRequestedOptions = {},
): Promise<PromiseSettledResult<RequestedSubmitResult>[]> {
  // Each request's work logs its payout and correlation id, in spans continuing the message's traceparent.
  const inRequest = <T>(index: number, name: string, body: () => Promise<T>): Promise<T> => {
    const request = requests[index];
    if (!request) return body();
    return withLogContext(
      { payoutId: request.payoutId, ...(request.correlationId && { correlationId: request.correlationId }) },
      () =>
        inSpan(
          name,
          {
            kind: SpanKinds.consumer,
            attributes: {
              'payout.id': request.payoutId,
              ...(request.correlationId && { 'correlation.id': request.correlationId }),
            },
            ...(request.traceparent && { traceparent: request.traceparent }),
          },
          body,
        ),
    );
  };
  const steps = await Promise.allSettled(
    requests.map((request, index) => inRequest(index, 'claim payout', () => claimOne(ctx, request, options))),
  );
  const committed = steps.flatMap((step, index) =>
    step.status === 'fulfilled' && step.value.kind === 'awaiting-pause' ? [{ index, claim: step.value }] : [],
  );
  const now = options.now ?? Date.now;
  // The claims' pause reads and the batch's slot reservation go out together, once every claim committed: a
  // payout leaves only when both are back, so a pause that landed before its read still stops it (the slot
  // reserved for it goes unused), and the two round trips overlap instead of adding up.
  const [checks, reservation] = await Promise.all([
    Promise.allSettled(
      committed.map(({ index, claim }) => inRequest(index, 'read pause', () => unlessPaused(ctx, claim))),
    ),
    reserveSlots(options, committed.length, now),
  ]);
  const outcomes = new Map<number, Promise<RequestedSubmitResult> | { readonly failed: unknown }>();
  committed.forEach(({ index }, position) => {
    const check = checks[position];
    if (check === undefined || check.status === 'rejected') {
      outcomes.set(index, { failed: check?.reason });
    } else if (check.value.kind !== 'claimed') {
      outcomes.set(index, Promise.resolve(check.value));
    } else if ('failed' in reservation) {
      // No slot, no send: the claim is given back unsent (whether or not that write succeeds) and its message
      // handed back to the queue.
      const noSlot = () => Promise.reject(reservation.failed);
      const claimed = check.value;
      outcomes.set(
        index,
        inRequest(index, 'give claim back', () =>
          releaseUnsentClaim(ctx, claimed, 'no send slot from the rate limiter'),
        ).then(noSlot, noSlot),
      );
    } else {
      const claimed = check.value;
      outcomes.set(
        index,
        inRequest(index, 'send payout', () =>
          sendAtSlot(ctx, claimed, reservation.slots[position] ?? now(), options, now),
        ),
      );
    }
  });
  return Promise.allSettled(
    steps.map(async (step, index): Promise<RequestedSubmitResult> => {
      const outcome = outcomes.get(index);
      if (outcome && 'failed' in outcome) throw outcome.failed;
      if (outcome) return outcome;
      if (step.status === 'rejected') throw step.reason;
      return step.value as RequestedSubmitResult;
    }),
  );
}

/** The batch's send slots: from the fleet's rate limiter, or now for every claim when there is none. */
function reserveSlots(
  options: SubmitRequestedOptions,
  count: number,
  now: () => number,
): Promise<{ readonly slots: number[] } | { readonly failed: unknown }> {
  const reserving = options.limiter
    ? options.limiter.reserve(count)
    : Promise.resolve(Array.from({ length: count }, () => now()));
  return reserving.then(
    (slots) => ({ slots }),
    (failed: unknown) => ({ failed }),
  );
}

async function claimOne(
  ctx: SendingContext,
  request: SubmissionRequest,
  options: SubmitRequestedOptions,
): Promise<Step> {
  if (options.stopStartingAt !== undefined && Date.now() >= options.stopStartingAt) {
    return { kind: 'deferred', payoutId: request.payoutId, why: 'the invocation ran out of time' };
  }
  const payout = await ctx.store.get(request.payoutId);
  if (!payout) {
    ctx.logger.warn('queued payout not found', { payoutId: request.payoutId });
    return { kind: 'deferred', payoutId: request.payoutId, why: 'no such payout' };
  }
  const claimed = await claimLeavingPause(ctx, payout);
  // Refused with nothing changed: handed back to be delivered again in seconds (lib/jobs/hand-back.ts).
  if (claimed.kind === 'skipped' && claimed.why === CLAIM_CONTENDED) {
    return { kind: 'deferred', payoutId: request.payoutId, why: CLAIM_CONTENDED };
  }
  return claimed;
}

async function sendAtSlot(
  ctx: SendingContext,
  claim: Claimed,
  slot: number,
  options: SubmitRequestedOptions,
  now: () => number,
  retriesLeft = MAX_RATE_LIMITED_RETRIES,
): Promise<RequestedSubmitResult> {
  const waited = await waitForSlot(ctx, claim, slot, options, now);
  if (waited) return waited;
  const sent = await sendClaimed(ctx, claim);
  const { outcome } = sent;
  if (!(outcome.kind === 'not_sent' && outcome.rateLimited && options.limiter)) return sent.recording;
  // A 429 holds back every worker until its Retry-After has passed, not only this one.
  const until = now() + (outcome.retryAfterMs ?? DEFAULT_COOL_DOWN_MS);
  await options.limiter.coolDown(until).catch((error: unknown) => {
    ctx.logger.warn('could not write the fleet-wide cool-down', {
      error: error instanceof Error ? error.name : 'unknown',
    });
  });
  const recorded = await sent.recording;
  if (retriesLeft <= 0) return recorded;
  return (
    (await retryAfterRateLimit(ctx, recorded, options, options.limiter, now, retriesLeft - 1)) ?? recorded
  );
}

/**
 * Waits for the payout's slot; undefined when it may be sent now. A payout that waited reads the pause again
 * before it leaves: the read beside the reservation is up to MAX_SLOT_WAIT_MS old by then, and "once the pause
 * returns nothing new is sent" must hold for a payout still waiting for its slot (paused, its claim is given
 * back unsent, as when the pause lands between the claim and the first read). A slot passed by more than
 * MAX_SEND_LATENESS_MS by the time the payout could leave (its reservation came back late, or the timer fired
 * late on a busy event loop) is replaced by a new one: sends that leave late crowd the sends on time into
 * fewer seconds, which a provider counting any one second answers with 429. A missed slot costs the fleet one
 * interval; a 429 costs the payout its Retry-After and the fleet a cool-down. All of it, replacements
 * included, stays within MAX_SLOT_WAIT_MS of the first slot's check: a slot beyond it gives the claim back
 * unsent; a replacement not reserved by then, or a second miss, leaves late.
 */
async function waitForSlot(
  ctx: EngineContext,
  claim: Claimed,
  firstSlot: number,
  options: SubmitRequestedOptions,
  now: () => number,
): Promise<Extract<RequestedSubmitResult, { kind: 'skipped' }> | undefined> {
  const waitUntil = now() + MAX_SLOT_WAIT_MS;
  let slot = firstSlot;
  let waited = false;
  /** Sent now, unless the payout waited and payouts were paused meanwhile (or the pause could not be read). */
  const leaveNow = async () => {
    if (!waited) return undefined;
    let checked: Awaited<ReturnType<typeof unlessPaused>>;
    try {
      checked = await unlessPaused(ctx, claim, { signal: AbortSignal.timeout(PAUSE_RECHECK_DEADLINE_MS) });
    } catch {
      const why = `the pause could not be read again within ${PAUSE_RECHECK_DEADLINE_MS} ms`;
      return { kind: 'skipped' as const, payout: await releaseUnsentClaim(ctx, claim, why), why };
    }
    return checked.kind === 'claimed' ? undefined : checked;
  };
  for (let taken = 1; ; taken++) {
    if (slot > waitUntil) {
      const why = `the provider's rate limit leaves no slot within ${MAX_SLOT_WAIT_MS} ms`;
      const released = await releaseUnsentClaim(ctx, claim, why);
      ctx.metrics.count('RateLimitDeferred');
      return { kind: 'skipped', payout: released, why };
    }
    const waitMs = slot - now();
    if (waitMs > 0) {
      await (options.sleep ?? realSleep)(waitMs);
      waited = true;
    }
    const missed = now() - slot > MAX_SEND_LATENESS_MS;
    const leftMs = waitUntil - now();
    if (!options.limiter || !missed || taken >= MAX_SLOTS_PER_SEND || leftMs <= 0) return leaveNow();
    ctx.metrics.count('SendSlotMissed');
    try {
      [slot = now()] = await options.limiter.reserve(1, { signal: timeoutSignal(leftMs) });
    } catch {
      // No new slot in time: leave at the missed one rather than give up a claimed payout.
      return leaveNow();
    }
  }
}

/**
 * The payout a 429 sent back to `pending` is claimed again once its Retry-After has passed, and sent at a new
 * slot, when this invocation may still start a payout (the same `stopStartingAt` as a first claim, so the
 * worker's worst case is unchanged). Undefined when it may not, or when the claim is not ours: the payout stays
 * `pending` and the next tick enqueues it.
 */
async function retryAfterRateLimit(
  ctx: SendingContext,
  recorded: RequestedSubmitResult,
  options: SubmitRequestedOptions,
  limiter: ProviderRateLimiter,
  now: () => number,
  retriesLeft: number,
): Promise<RequestedSubmitResult | undefined> {
  if (recorded.kind === 'deferred' || recorded.payout.status !== PayoutStatus.Pending) return undefined;
  const payout = recorded.payout;
  // One millisecond past nextActionAt, which the claim compares at millisecond precision.
  const waitMs = Date.parse(payout.nextActionAt ?? '') + 1 - ctx.clock.now().getTime();
  if (!(waitMs <= MAX_SLOT_WAIT_MS)) return undefined;
  if (options.stopStartingAt !== undefined && Date.now() + Math.max(0, waitMs) >= options.stopStartingAt) {
    return undefined;
  }
  if (waitMs > 0) await (options.sleep ?? realSleep)(waitMs);
  const claimed = await claimForSubmission(ctx, payout);
  if (claimed.kind !== 'claimed') return undefined;
  let slot: number;
  try {
    [slot = now()] = await limiter.reserve(1);
  } catch {
    await releaseUnsentClaim(ctx, claimed, 'no send slot from the rate limiter');
    return undefined;
  }
  return sendAtSlot(ctx, claimed, slot, options, now, retriesLeft);
}

function realSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
