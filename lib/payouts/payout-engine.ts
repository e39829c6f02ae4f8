import type { SendingContext } from './engine/context.js';
import { type DispatchOptions, type DispatchReport, dispatchDuePayouts } from './engine/dispatch.js';
import { resolveReview } from './engine/payout-commands.js';
import { type SubmitResult, submitPayout } from './engine/submit-payout.js';
import { type SweepOptions, type SweepReport, sweepDuePayouts } from './engine/sweep.js';
import type { PayoutGateway } from './gateway.js';
import type { Payout, Principal } from './model.js';
import { engineContextFrom, PayoutLedger, type PayoutLedgerOptions } from './payout-ledger.js';
import type { SubmissionQueue } from './queue/submission-queue.js';

export interface PayoutEngineOptions extends PayoutLedgerOptions {
  readonly gateway: PayoutGateway;
}

/**
 * The payout engine: the ledger (payout-ledger.ts) and what calls the provider. It submits each payout at most
 * once, and decides every unknown outcome by reconciliation rather than by resending.
 *
 * @example
 * const engine = new PayoutEngine({ store, gateway });
 * const { payout } = await engine.create({ request, idempotencyKey: 'inv-1', origin: 'api', actor });
 * await engine.submit(payout.id);
 *
 * Operations only one function runs are functions of their own on `engine.ctx`, not methods, so no other
 * function's bundle carries them: the submission workers' `submitRequested` (engine/submit-requested.ts), the
 * reconciler's `reconcilePayouts` (engine/reconcile-payouts.ts).
 */
export class PayoutEngine extends PayoutLedger {
  declare readonly ctx: SendingContext;

  /** From options, or on a ledger's context with a gateway (lib/runtime/payout-engine.ts). */
  constructor(options: PayoutEngineOptions | { readonly ctx: SendingContext }) {
    super('ctx' in options ? options : { ctx: { ...engineContextFrom(options), gateway: options.gateway } });
  }

  /** Submits a pending payout now (no-op for any other status). */
  async submit(id: string): Promise<SubmitResult> {
    return submitPayout(this.ctx, await this.load(id));
  }

  /**
   * A person's decision on a payout in `needs_review`; a `succeeded` one is checked against the provider's
   * record (engine/resolve-as-paid.ts).
   */
  resolveReview(
    id: string,
    actor: Principal,
    decision: Parameters<typeof resolveReview>[3],
  ): Promise<Payout> {
    return resolveReview(this.ctx, id, actor, decision);
  }

  /** One tick of the due-payout sweeper (EventBridge schedule in AWS, the local scheduler in `npm start`). */
  sweep(options?: SweepOptions): Promise<SweepReport> {
    return sweepDuePayouts(this.ctx, options);
  }

  /** One tick of the sweeper that fans submission out: releases due scheduled payouts, enqueues the pending. */
  dispatch(queue: SubmissionQueue, options?: DispatchOptions): Promise<DispatchReport> {
    return dispatchDuePayouts(this.ctx, queue, options);
  }
}
