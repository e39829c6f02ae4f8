import { errorKind } from '../../shared/errors.js';
/**
 * The provider's rate limit, shared by every worker of the fleet (docs/submission.md). Workers reserve send
 * slots for a batch before calling the provider; a 429 pushes every later slot past its Retry-After, so one
 * worker's 429 slows the whole fleet, not only itself.
 *
 * @example
 * const slots = await limiter.reserve(claimed.length); // epoch ms at which each send may start
 */
export interface ProviderRateLimiter {
  /**
   * Reserves `count` consecutive send slots; resolves with the instant (epoch ms) each may start. An aborted
   * `signal` stops waiting for the shared item (RateLimiterUnavailableError); a slot it took anyway goes unused.
   */
  reserve(count: number, options?: { signal?: AbortSignal }): Promise<number[]>;
  /** The provider answered 429: no slot starts before `untilMs` (epoch ms), fleet-wide. */
  coolDown(untilMs: number): Promise<void>;
}

/** The limiter could not reserve (its shared item stayed contended or unreachable): nothing was sent. */
export class RateLimiterUnavailableError extends /* @__PURE__ */ errorKind(
  'RateLimiterUnavailableError',
  'RATE_LIMITER_UNAVAILABLE',
) {}

/**
 * The share of the provider's rate limit the fleet paces itself to. A send leaves at its slot but reaches the
 * provider a little early or late (event-loop and network jitter); a provider counting "at most R in any one
 * second" answers 429 to the one over, and every 429 holds the whole fleet back for its Retry-After (a second
 * of sending lost). Pacing 5% under R absorbs 50 ms of jitter in every second.
 */
export const PACING_FRACTION = 0.95;

/**
 * How late a send may still leave after its slot. Sends that each leave within `d` of their slots put at most
 * (1 s + d) of slots in any one second: at 95% of R that stays within R for d up to 1000 / 0.95 - 1000 = 52 ms.
 * Half of that is left to the network and the provider's own clock. A send later than this (a reservation that
 * came back after its first slots had passed, a timer fired late under load) takes a new slot instead of
 * leaving together with the sends on time, which would put more than a second's slots into one second.
 */
export const MAX_SEND_LATENESS_MS = Math.floor((1000 / PACING_FRACTION - 1000) / 2);
