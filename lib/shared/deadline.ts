import { errorKind } from './errors.js';

/** A piece of work that did not finish within its deadline; it was abandoned (its signal aborted). */
export class DeadlineExceededError extends /* @__PURE__ */ errorKind(
  'DeadlineExceededError',
  'DEADLINE_EXCEEDED',
) {
  constructor(readonly deadlineMs: number) {
    super(`did not finish within ${deadlineMs} ms`);
  }
}

/**
 * `AbortSignal.timeout` for a deadline that was computed (an invocation's time left less a margin): Node refuses
 * a fraction of a millisecond with a RangeError, so it is rounded up, and a deadline already past aborts at once.
 */
export const timeoutSignal = (deadlineMs: number): AbortSignal =>
  AbortSignal.timeout(Math.max(0, Math.ceil(deadlineMs)));

/**
 * Runs `work` with a signal that aborts after `deadlineMs`, and rejects with `DeadlineExceededError` then even
 * when the work ignores its signal (a credentials read, a client without abort support): a caller's worst
 * case is the deadline, not the work's own retries and timeouts. Only for work whose abandonment is safe to
 * repeat (reads, idempotent upserts).
 *
 * @example const page = await withinDeadline(15_000, (signal) => client.payouts.listScheduled({ page: 2 }, { signal }));
 */
export function withinDeadline<T>(deadlineMs: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const signal = timeoutSignal(deadlineMs);
  const passed = new Promise<never>((_resolve, reject) => {
    const fail = () => reject(new DeadlineExceededError(deadlineMs));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
  // The abandoned side's rejection is handled here, so it never surfaces as unhandled.
  passed.catch(() => undefined);
  return Promise.race([work(signal), passed]);
}

/** Each signal of `signalWithDeadline` holding its deadline: an entry lives as long as its key, the signal. */
const heldDeadlines = new WeakMap<AbortSignal, AbortSignal>();

/**
 * A signal that aborts once `deadlineMs` have passed, with `AbortSignal.timeout`'s `TimeoutError` as its reason,
 * or when one of `signals` aborts, with that one's reason: `AbortSignal.any([AbortSignal.timeout(ms), ...])` whose
 * deadline cannot be lost.
 *
 * Why not that expression alone: Node holds the sources of `AbortSignal.any` weakly, and a timeout signal that is
 * neither reachable nor listened to is collected, its timer with it. A signal composed over a bare timeout then
 * never aborts if a garbage collection comes before the deadline: a provider call with a 100 ms deadline was
 * answered after 400 ms, in one call of twenty, and in every call when collections were forced
 * (test/provider/deadline-under-gc.test.ts). Here the signal holds its deadline, so the deadline lives exactly
 * as long as whoever waits on the signal.
 *
 * @example const signal = signalWithDeadline(5_000, callerSignal);
 */
export function signalWithDeadline(deadlineMs: number, ...signals: (AbortSignal | undefined)[]): AbortSignal {
  const deadline = timeoutSignal(deadlineMs);
  const signal = AbortSignal.any([deadline, ...signals.filter((source) => source !== undefined)]);
  heldDeadlines.set(signal, deadline);
  return signal;
}
