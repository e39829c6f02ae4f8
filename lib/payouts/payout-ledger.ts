import type { Principal } from '../controls/index.js';
import type { Clock } from '../shared/clock.js';
import { systemClock } from '../shared/clock.js';
import { NotFoundError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { silentLogger } from '../shared/logger.js';
import { defaultEngineConfig, type EngineConfig } from './config.js';
import { type EngineContext, type MetricsSink, noMetrics } from './engine/context.js';
import { type CreatePayoutCommand, type CreatePayoutResult, createPayout } from './engine/create-payout.js';
import { cancelPayout } from './engine/payout-commands.js';
import type { Controls, Payout } from './model.js';
import type { PayoutStore } from './store/payout-store.js';

export interface PayoutLedgerOptions {
  readonly store: PayoutStore;
  readonly clock?: Clock;
  readonly config?: Partial<EngineConfig>;
  readonly logger?: Logger;
  readonly metrics?: MetricsSink;
}

/**
 * The payouts as records: accepts each once per idempotency key through the control gate and reads them (listings
 * are `PayoutListing`'s, store/payout-listing.ts). It cancels (recurring payouts cancel their occurrences through
 * it); approving and pausing are free functions over its context (`approvePayout` in engine/payout-commands.ts,
 * `pausePayouts` and `resumePayouts` in engine/controls.ts), so only the function serving them carries them. It
 * never calls the provider: a function that only records and reads payouts (the recurrence and correction routes,
 * the approvals queue) builds this and carries no provider code. `PayoutEngine` (payout-engine.ts) adds what
 * sends and looks payouts up.
 *
 * @example
 * const ledger = new PayoutLedger({ store });
 * const { payout } = await ledger.create({ request, idempotencyKey: 'inv-1', origin: 'api', actor });
 */
export class PayoutLedger {
  readonly ctx: EngineContext;

  /** From options, or on a context another ledger built (so both share its pause state). */
  constructor(options: PayoutLedgerOptions | { readonly ctx: EngineContext }) {
    this.ctx = 'ctx' in options ? options.ctx : engineContextFrom(options);
  }

  create(command: CreatePayoutCommand): Promise<CreatePayoutResult> {
    return createPayout(this.ctx, command);
  }

  get(id: string): Promise<Payout | undefined> {
    return this.ctx.store.get(id);
  }

  cancel(id: string, actor: Principal, reason?: string): Promise<Payout> {
    return cancelPayout(this.ctx, id, actor, reason);
  }

  controls(): Promise<Controls> {
    return this.ctx.store.getControls();
  }

  protected async load(id: string): Promise<Payout> {
    const payout = await this.ctx.store.get(id);
    if (!payout) throw new NotFoundError('payout', id);
    return payout;
  }
}

/** The engine's context from options, with the defaults for what they leave out. */
export function engineContextFrom(options: PayoutLedgerOptions): EngineContext {
  return {
    store: options.store,
    clock: options.clock ?? systemClock,
    config: { ...defaultEngineConfig, ...options.config },
    logger: options.logger ?? silentLogger,
    metrics: options.metrics ?? noMetrics,
    pause: { lastSeenPaused: false },
  };
}
