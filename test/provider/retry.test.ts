import { describe, expect, it } from 'vitest';
import type { Failure } from '../../lib/provider/failure.js';
import {
  backoffDelayMs,
  decideRetry,
  isRetryable,
  parseRetryAfterMs,
  type RetryPolicy,
} from '../../lib/provider/retry.js';

const policy: RetryPolicy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 5_000 };
const refused: Failure = { type: 'network', kind: 'connect-refused', phase: 'before-send' };
const reset: Failure = { type: 'network', kind: 'reset', phase: 'after-send' };
const timeout: Failure = { type: 'network', kind: 'timeout', phase: 'after-send' };
const aborted: Failure = { type: 'network', kind: 'aborted', phase: 'after-send' };
const http = (status: number, retryAfterMs?: number): Failure =>
  retryAfterMs === undefined ? { type: 'http', status } : { type: 'http', status, retryAfterMs };

describe('isRetryable', () => {
  it('retries a GET on every transient failure', () => {
    for (const failure of [refused, reset, timeout, http(500), http(503), http(429), http(408)]) {
      expect(isRetryable('GET', failure)).toBe(true);
    }
  });

  it('never retries a rejection', () => {
    for (const status of [400, 401, 403, 404, 422]) {
      expect(isRetryable('GET', http(status))).toBe(false);
      expect(isRetryable('POST', http(status))).toBe(false);
    }
  });

  it('retries a POST or PATCH only when the connection was never made', () => {
    for (const method of ['POST', 'PATCH'] as const) {
      expect(isRetryable(method, refused)).toBe(true);
      expect(isRetryable(method, { type: 'network', kind: 'connect-timeout', phase: 'before-send' })).toBe(
        true,
      );
      for (const failure of [reset, timeout, http(500), http(503), http(429), http(408)]) {
        expect(isRetryable(method, failure)).toBe(false);
      }
    }
  });

  it('never retries a caller abort', () => {
    expect(isRetryable('GET', aborted)).toBe(false);
  });
});

describe('backoffDelayMs', () => {
  it('grows exponentially up to the cap (full jitter upper bound)', () => {
    const top = () => 0.999_999;
    expect([1, 2, 3, 4, 5, 6].map((attempt) => backoffDelayMs(attempt, policy, top))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
  });

  it('draws uniformly from zero', () => {
    expect(backoffDelayMs(3, policy, () => 0)).toBe(0);
    expect(backoffDelayMs(3, policy, () => 0.5)).toBe(200);
  });

  it('is zero with a zero base', () => {
    expect(backoffDelayMs(5, { ...policy, baseDelayMs: 0 }, () => 0.9)).toBe(0);
  });
});

describe('decideRetry', () => {
  it('stops at maxAttempts', () => {
    expect(decideRetry('GET', http(503), 3, policy, () => 0.5)).toEqual({ retry: true, delayMs: 200 });
    expect(decideRetry('GET', http(503), 4, policy, () => 0.5)).toEqual({ retry: false });
  });

  it('waits Retry-After on a 429 within the cap', () => {
    expect(decideRetry('GET', http(429, 2_000), 1, policy)).toEqual({ retry: true, delayMs: 2_000 });
  });

  it('gives up on a 429 whose Retry-After exceeds the cap', () => {
    expect(decideRetry('GET', http(429, 60_000), 1, policy)).toEqual({ retry: false });
  });

  it('backs off on a 429 without Retry-After', () => {
    expect(decideRetry('GET', http(429), 2, policy, () => 0.5)).toEqual({ retry: true, delayMs: 100 });
  });

  it('does not retry a POST after a 5xx', () => {
    expect(decideRetry('POST', http(500), 1, policy)).toEqual({ retry: false });
  });
});

describe('parseRetryAfterMs', () => {
  it('reads delta seconds', () => {
    expect(parseRetryAfterMs('2', 0)).toBe(2_000);
    expect(parseRetryAfterMs(' 0 ', 0)).toBe(0);
  });

  it('reads an HTTP date relative to now', () => {
    const now = Date.parse('2024-05-02T10:00:00Z');
    expect(parseRetryAfterMs('Thu, 02 May 2024 10:00:03 GMT', now)).toBe(3_000);
    expect(parseRetryAfterMs('Thu, 02 May 2024 09:00:00 GMT', now)).toBe(0);
  });

  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfterMs(undefined, 0)).toBeUndefined();
    expect(parseRetryAfterMs('soon', 0)).toBeUndefined();
  });
});
