import type { HttpMethod } from './errors.js';
import { type Failure, isMutating, NetworkErrorKind, Phase } from './failure.js';

/** How hard the client tries. Attempts count every HTTP attempt, the first included. */
export type RetryPolicy = {
  /** Total attempts for one call (1 = no retry). */
  maxAttempts: number;
  /** Base of the exponential backoff; 0 disables waiting (useful in tests). */
  baseDelayMs: number;
  /** Cap of one backoff delay. */
  maxDelayMs: number;
  /** A 429 whose Retry-After exceeds this is not waited for: the error goes back to the caller. */
  maxRetryAfterMs: number;
};

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 2_000,
  maxRetryAfterMs: 5_000,
};

export type RetryDecision = { retry: false } | { retry: true; delayMs: number };

/**
 * Whether this failure may be repeated at all, ignoring attempt counts.
 * POST/PATCH: only when no byte can have been sent (connection never made). GET: every transient failure
 * (network, 5xx, 408, 429), never a rejection. A caller's abort is never retried.
 */
export function isRetryable(method: HttpMethod, failure: Failure): boolean {
  if (failure.type === 'network') {
    if (failure.kind === NetworkErrorKind.Aborted) return false;
    if (failure.phase === Phase.BeforeSend) return true;
    return !isMutating(method);
  }
  if (isMutating(method)) return false;
  return failure.status === 429 || failure.status === 408 || failure.status >= 500;
}

/**
 * Full-jitter exponential backoff: a uniform delay in [0, min(cap, base * 2^(attempt-1))).
 * `attempt` is the number of the attempt that just failed (1-based).
 */
export function backoffDelayMs(
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/** Decides whether to make another attempt after `attempt` failed, and how long to wait first. */
export function decideRetry(
  method: HttpMethod,
  failure: Failure,
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): RetryDecision {
  if (attempt >= policy.maxAttempts) return { retry: false };
  if (!isRetryable(method, failure)) return { retry: false };
  if (failure.type === 'http' && failure.status === 429 && failure.retryAfterMs !== undefined) {
    if (failure.retryAfterMs > policy.maxRetryAfterMs) return { retry: false };
    return { retry: true, delayMs: failure.retryAfterMs };
  }
  return { retry: true, delayMs: backoffDelayMs(attempt, policy, random) };
}

/**
 * Reads a Retry-After header (delta seconds or an HTTP date) as milliseconds from `nowMs`.
 * Returns undefined when absent or unreadable.
 */
export function parseRetryAfterMs(header: string | undefined, nowMs: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}
