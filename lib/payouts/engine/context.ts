import type { Principal } from '../../controls/index.js';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import type { MetricsSink } from '../../shared/metrics.js';
import type { EngineConfig } from '../config.js';
import type { PayoutGateway } from '../gateway.js';
import type { AuditEvent, Payout, PayoutStatus } from '../model.js';
import type { PayoutStore, TransitionWrite } from '../store/payout-store.js';

export { type MetricsSink, noMetrics } from '../../shared/metrics.js';

/** Everything the engine's operations that record decisions need, injected once. */
export interface EngineContext {
  readonly store: PayoutStore;
  readonly clock: Clock;
  readonly config: EngineConfig;
  readonly logger: Logger;
  readonly metrics: MetricsSink;
  /**
   * The pause as this engine last saw it (read or written). Only spares writes: while it says paused, a claim
   * reads the pause first and is not made; the check that counts is the read after every claim
   * (submit-payout.ts, `pausedNow`).
   */
  readonly pause: { lastSeenPaused: boolean };
}

/**
 * What the operations that call the provider need besides: the gateway. Only the functions that send or look
 * payouts up at the provider build one (lib/runtime/payout-engine.ts), so the others carry no provider code.
 */
export interface SendingContext extends EngineContext {
  readonly gateway: PayoutGateway;
}

export interface TransitionSpec {
  readonly to: PayoutStatus;
  readonly actor: Principal;
  readonly reason: string;
  readonly changes?: Partial<Omit<Payout, 'id' | 'status' | 'version'>>;
  readonly details?: AuditEvent['details'];
  readonly cap?: TransitionWrite['cap'];
}

/** Builds the next version of a payout and the audit event that records the change. */
export function buildTransition(payout: Payout, spec: TransitionSpec, now: Date): TransitionWrite {
  const at = now.toISOString();
  const after: Payout = {
    ...payout,
    ...spec.changes,
    status: spec.to,
    version: payout.version + 1,
    updatedAt: at,
  };
  const audit: AuditEvent = {
    payoutId: payout.id,
    sequence: after.version,
    at,
    actor: spec.actor,
    from: payout.status,
    to: spec.to,
    reason: spec.reason,
    ...(spec.details && { details: spec.details }),
  };
  return {
    before: payout,
    after,
    audit,
    ...(spec.cap && { cap: spec.cap }),
  };
}

export function addMs(at: Date, milliseconds: number): string {
  return new Date(at.getTime() + milliseconds).toISOString();
}
