// The bound a caller that must answer by a deadline (the ops API) puts on a send it makes inline: payouts
// (lib/payouts/engine/create-and-submit.ts) and refunds (lib/refunds/refund-sender.ts) keep to the same one, and so
// do the provider reads a send depends on (readWithinWindow).

import { DeadlineExceededError, withinDeadline } from './deadline.js';

/**
 * A caller's bound on its own send (the API's request deadline, lib/api/request-deadline.ts): no provider call
 * starts at or after `sendBy` (epoch ms, on the wall clock `Date.now`: a process frozen meanwhile, as a Lambda
 * container is between invocations, still sees the time that passed), and one that starts has `deadlineMs` in
 * all. What is too late to send is left (or given back) for the scheduled sender: a payout pending without a hold
 * for the sweeper's next tick, a refund `requested` for the sweep.
 */
export interface SendWindow {
  readonly sendBy: number;
  readonly deadlineMs: number;
}

/** Whether a send bounded by `window` may no longer start. */
export function sendWindowPassed(window: SendWindow | undefined): boolean {
  return window !== undefined && Date.now() >= window.sendBy;
}

/**
 * How long a provider read that comes before anything is recorded (a refund's read of its transaction, an instant
 * settlement's read of the provider's listing) may take within `window`, in ms at `now`: no longer than an inline
 * send may take (`deadlineMs`), and ending no later than a send started at the window's last instant would
 * (`sendBy + deadlineMs`). That instant is the one the API's limits proof already fits before the request's
 * deadline with room to answer (test/infra/handler-limits.test.ts), so such a read needs no figure of its own.
 * 0 once it has passed.
 *
 * @example readWithinWindowMs({ sendBy: now + 12_000, deadlineMs: 10_000 }, now) // 10_000
 */
export function readWithinWindowMs(window: SendWindow, now: number = Date.now()): number {
  return Math.max(0, Math.min(window.deadlineMs, window.sendBy + window.deadlineMs - now));
}

/**
 * `read` within `window` (readWithinWindowMs): abandoned when that time is up (its signal aborts the HTTP call, so
 * nothing is left running), rejecting with `DeadlineExceededError`, which the API answers `503 request-deadline`.
 * Not started at all when no time is left, since a read with none would still reach the provider before its abort.
 * Only for reads made before anything is recorded, so that the caller's retry starts afresh.
 *
 * @example const page = await readWithinWindow(request.deadline.sendWindow, (signal) => client.settlements.list({}, { signal }));
 * @throws DeadlineExceededError
 */
export function readWithinWindow<T>(
  window: SendWindow,
  read: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const readMs = readWithinWindowMs(window);
  if (readMs === 0) return Promise.reject(new DeadlineExceededError(0));
  return withinDeadline(readMs, read);
}
