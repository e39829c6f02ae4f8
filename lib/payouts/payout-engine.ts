import type { Clock } from '../shared/clock.js';
import { systemClock } from '../shared/clock.js';
import { NotFoundError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { silentLogger } from '../shared/logger.js';
import { defaultEngineConfig, type EngineConfig } from './config.js';
import { type EngineContext, type MetricsSink, noMetrics } from './engine/context.js';
import { pausePayouts, resumePayouts } from './engine/controls.js';
import { type CreatePayoutCommand, type CreatePayoutResult, createPayout } from './engine/create-payout.js';
import { type DispatchOptions, type DispatchReport, dispatchDuePayouts } from './engine/dispatch.js';
import { approvePayout, cancelPayout, resolveReview } from './engine/payout-commands.js';
import { type SubmitResult, submitPayout } from './engine/submit-payout.js';
import { type SweepOptions, type SweepReport, sweepDuePayouts } from './engine/sweep.js';

import type { PayoutGateway } from './gateway.js';
import type { AuditEvent, Controls, Payout, Principal } from './model.js';
import type { SubmissionQueue } from './queue/submission-queue.js';
import type { ListPage, ListQuery, PayoutStore } from './store/payout-store.js';

export interface PayoutEngineOptions {
  readonly store: PayoutStore;
  readonly gateway: PayoutGateway;
  readonly clock?: Clock;
  readonly config?: Partial<EngineConfig>;
  readonly logger?: Logger;
  readonly metrics?: MetricsSink;
}

/**
 * The payout engine: accepts payouts once per idempotency key, submits each at most once, and decides
 * every unknown outcome by reconciliation rather than by resending.
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
export class PayoutEngine {
  readonly ctx: EngineContext;

  constructor(options: PayoutEngineOptions) {
    this.ctx = {
      store: options.store,
      gateway: options.gateway,
      clock: options.clock ?? systemClock,
      config: { ...defaultEngineConfig, ...options.config },
      logger: options.logger ?? silentLogger,
      metrics: options.metrics ?? noMetrics,
      pause: { lastSeenPaused: false },
    };
  }

  create(command: CreatePayoutCommand): Promise<CreatePayoutResult> {
    return createPayout(this.ctx, command);
  }

  /** Submits a pending payout now (no-op for any other status). */
  async submit(id: string): Promise<SubmitResult> {
    return submitPayout(this.ctx, await this.#load(id));
  }

  get(id: string): Promise<Payout | undefined> {
    return this.ctx.store.get(id);
  }

  /** The payout with its audit trail, oldest event first. */
  async getWithAudit(id: string): Promise<{ payout: Payout; audit: AuditEvent[] }> {
    const payout = await this.#load(id);
    return { payout, audit: await this.ctx.store.getAudit(id) };
  }

  list(query: ListQuery): Promise<ListPage> {
    return this.ctx.store.list(query);
  }

  approve(id: string, approver: Principal): Promise<Payout> {
    return approvePayout(this.ctx, id, approver);
  }

  cancel(id: string, actor: Principal, reason?: string): Promise<Payout> {
    return cancelPayout(this.ctx, id, actor, reason);
  }

  resolveReview(
    id: string,
    actor: Principal,
    decision: Parameters<typeof resolveReview>[3],
  ): Promise<Payout> {
    return resolveReview(this.ctx, id, actor, decision);
  }

  pause(actor: Principal, reason: string): Promise<Controls> {
    return pausePayouts(this.ctx, actor, reason);
  }

  resume(actor: Principal, reason?: string): Promise<Controls> {
    return resumePayouts(this.ctx, actor, reason);
  }

  controls(): Promise<Controls> {
    return this.ctx.store.getControls();
  }

  /** One tick of the due-payout sweeper (EventBridge schedule in AWS, the local scheduler in `npm start`). */
  sweep(options?: SweepOptions): Promise<SweepReport> {
    return sweepDuePayouts(this.ctx, options);
  }

  /** One tick of the sweeper that fans submission out: releases due scheduled payouts, enqueues the pending. */
  dispatch(queue: SubmissionQueue, options?: DispatchOptions): Promise<DispatchReport> {
    return dispatchDuePayouts(this.ctx, queue, options);
  }

  async #load(id: string): Promise<Payout> {
    const payout = await this.ctx.store.get(id);
    if (!payout) throw new NotFoundError('payout', id);
    return payout;
  }
}
