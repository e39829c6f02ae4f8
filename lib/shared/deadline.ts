import { PayoutAutomationError } from './errors.js';

/** A piece of work that did not finish within its deadline; it was abandoned (its signal aborted). */
export class DeadlineExceededError extends PayoutAutomationError {
  override readonly name = 'DeadlineExceededError';
  override readonly code = 'DEADLINE_EXCEEDED';
  constructor(readonly deadlineMs: number) {
    super(`did not finish within ${deadlineMs} ms`);
  }
}

/**
 * Runs `work` with a signal that aborts after `deadlineMs`, and rejects with `DeadlineExceededError` then even
 * when the work ignores its signal (a credentials read, a client without abort support): a caller's worst
 * case is the deadline, not the work's own retries and timeouts. Only for work whose abandonment is safe to
 * repeat (reads, idempotent upserts).
 *
 * @example const page = await withinDeadline(15_000, (signal) => client.payouts.listScheduled({ page: 2 }, { signal }));
 */
export function withinDeadline<T>(deadlineMs: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const signal = AbortSignal.timeout(deadlineMs);
  const passed = new Promise<never>((_resolve, reject) => {
    const fail = () => reject(new DeadlineExceededError(deadlineMs));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
  // The abandoned side's rejection is handled here, so it never surfaces as unhandled.
  passed.catch(() => undefined);
  return Promise.race([work(signal), passed]);
}
