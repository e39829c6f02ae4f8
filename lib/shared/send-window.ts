// The bound a caller that must answer by a deadline (the ops API) puts on a send it makes inline: payouts
// (lib/payouts/engine/create-and-submit.ts) and refunds (lib/refunds/refund-sender.ts) keep to the same one.

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
