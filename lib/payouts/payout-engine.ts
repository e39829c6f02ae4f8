import type { SendingContext } from './engine/context.js';
import { type SubmitResult, submitPayout } from './engine/submit-payout.js';
import type { PayoutGateway } from './gateway.js';
import { engineContextFrom, PayoutLedger, type PayoutLedgerOptions } from './payout-ledger.js';

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
 * reconciler's `reconcilePayouts` (engine/reconcile-payouts.ts), the sweeper's `payoutSweeper`
 * (payout-sweeper.ts), a review resolved by a person, `resolveReview` (engine/payout-commands.ts).
 */
export class PayoutEngine extends PayoutLedger {
  declare readonly ctx: SendingContext;

  /** From options, or on a ledger's context with a gateway (lib/runtime/engines.ts). */
  constructor(options: PayoutEngineOptions | { readonly ctx: SendingContext }) {
    super('ctx' in options ? options : { ctx: { ...engineContextFrom(options), gateway: options.gateway } });
  }

  /** Submits a pending payout now (no-op for any other status). */
  async submit(id: string): Promise<SubmitResult> {
    return submitPayout(this.ctx, await this.load(id));
  }
}
