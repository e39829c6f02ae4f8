import { defaultEngineConfig, type EngineConfig } from '../payouts/config.js';
import { admit, assertMayApprove, type GateLimits, MoneyEntryPoint } from '../payouts/gate.js';
import type { Principal } from '../payouts/model.js';
import type { ProviderClient } from '../provider/client.js';
import { type Clock, systemClock } from '../shared/clock.js';
import {
  ConcurrentModificationError,
  IdempotencyConflictError,
  InvalidTransitionError,
  NotFoundError,
} from '../shared/errors.js';
import { fingerprint, ulid } from '../shared/ids.js';
import { type Logger, silentLogger } from '../shared/logger.js';
import { amountPaidOn } from './amount-paid.js';
import { RefundExceedsAmountPaidError } from './errors.js';
import { type CreateRefundRequest, type Refund, type RefundAuditEvent, RefundStatus } from './model.js';
import { RefundSender } from './refund-sender.js';
import type { DynamoDbRefundStore } from './refund-store.js';
import { releases } from './send-outcome.js';

/** The engine's limits refunds obey: the gate's maximum and threshold, and the merchant's daily cap. */
export type RefundLimits = GateLimits & Pick<EngineConfig, 'dailyCapKobo' | 'capTimeZone'>;

export interface RefundServiceOptions {
  readonly store: DynamoDbRefundStore;
  readonly provider: Pick<ProviderClient, 'refunds' | 'transactions'>;
  /** The payout engine's limits (the runtime passes its engine config); the engine's defaults otherwise. */
  readonly limits?: RefundLimits;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

export interface RequestRefundResult {
  readonly refund: Refund;
  /** True when the key had been used before with the same request: nothing new was sent. */
  readonly replayed: boolean;
}

/**
 * Refund requests: checked by the control gate, recorded once per idempotency key, then sent to the provider at
 * most once.
 *
 * - Before a refund is accepted the provider's record of the transaction is read (`amountPaid`), and the refund
 *   is written in one transaction with its share of the transaction's refunded total, conditioned on the total
 *   staying at or below what was paid: two refunds can never return more than was paid, however they race.
 * - The gate's maximum refuses larger amounts (400 naming `amount`); at or above the approval threshold the
 *   refund waits in `pending_approval` until another person approves it.
 * - Sending starts with a conditional claim (`requested`/`not_sent` -> `sending`) that commits with the pause
 *   check and the `merchant` daily cap, as a payout's claim does: while payouts are paused nothing is claimed
 *   and the refund waits in `requested`; above the cap it is refused.
 * - A refund that may have reached the provider (`unknown`, or a claim past its lease) is never resent.
 * - Every change writes its audit event in the same transaction.
 *
 * @example
 * const service = new RefundService({ store, provider, limits: engine.ctx.config });
 * const { refund } = await service.request({ request, idempotencyKey: 'rf-1', actor });
 * await service.approve(refund.id, bob); // when refund.status is 'pending_approval'
 */
export class RefundService {
  readonly #store: DynamoDbRefundStore;
  readonly #provider: Pick<ProviderClient, 'refunds' | 'transactions'>;
  readonly #limits: RefundLimits;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #sender: RefundSender;

  constructor(options: RefundServiceOptions) {
    this.#store = options.store;
    this.#provider = options.provider;
    this.#limits = options.limits ?? defaultEngineConfig;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
    this.#sender = new RefundSender({
      store: this.#store,
      provider: this.#provider,
      limits: this.#limits,
      clock: this.#clock,
      logger: this.#logger,
    });
  }

  /**
   * @throws ValidationError (above the maximum), RefundTransactionNotRefundableError,
   *   RefundExceedsAmountPaidError, IdempotencyConflictError; nothing is stored or sent then
   */
  async request(command: {
    request: CreateRefundRequest;
    idempotencyKey: string;
    actor: Principal;
  }): Promise<RequestRefundResult> {
    const { request, idempotencyKey, actor } = command;
    const decision = admit(this.#limits, {
      entryPoint: MoneyEntryPoint.Refund,
      amountKobo: request.amount,
      amountPath: 'amount',
    });
    const requestFingerprint = fingerprint(request);
    const recorded = await this.#store.findByIdempotencyKey(idempotencyKey);
    if (recorded) return this.#replay(recorded, requestFingerprint, idempotencyKey);

    const amountPaidKobo = await amountPaidOn(this.#provider, request.transactionId);
    if (request.amount > amountPaidKobo) {
      const already = await this.#store.refundedTotal(request.transactionId);
      throw new RefundExceedsAmountPaidError(request.amount, amountPaidKobo, already);
    }
    const now = this.#clock.now();
    const at = now.toISOString();
    const status = decision.approvalRequired ? RefundStatus.PendingApproval : RefundStatus.Requested;
    const refund: Refund = {
      id: ulid(now),
      idempotencyKey,
      requestFingerprint,
      transactionId: request.transactionId,
      amountKobo: request.amount,
      customerNote: request.customerNote,
      merchantNote: request.merchantNote,
      status,
      version: 1,
      requestedBy: actor,
      amountPaidKobo,
      countsInTotal: true,
      createdAt: at,
      updatedAt: at,
    };
    const audit: RefundAuditEvent = {
      refundId: refund.id,
      sequence: 1,
      at,
      actor,
      to: status,
      reason: decision.approvalRequired
        ? `requested by ${actor.id}; waits for a second person's approval (${decision.approvalRequired})`
        : `requested by ${actor.id}`,
    };
    const outcome = await this.#store.create(refund, audit);
    if (!outcome.created) return this.#replay(outcome.existing, requestFingerprint, idempotencyKey);
    if (status === RefundStatus.PendingApproval) {
      this.#logger.info('refund waits for approval', { refundId: refund.id });
      return { refund, replayed: false };
    }
    return { refund: await this.#sender.claimAndSend(refund), replayed: false };
  }

  /**
   * A second person approves a refund in `pending_approval`; it is then sent at once (or waits in `requested`
   * while payouts are paused).
   *
   * @throws ApprovalForbiddenError when the approver is the requester (by stable identity) or not a person
   * @throws InvalidTransitionError when the refund is not waiting for approval
   */
  async approve(id: string, approver: Principal): Promise<Refund> {
    const refund = await this.get(id);
    if (refund.status !== RefundStatus.PendingApproval) {
      throw new InvalidTransitionError(
        'refund',
        `refund ${id} is ${refund.status}; only a refund in pending_approval can be approved`,
      );
    }
    assertMayApprove(refund.requestedBy, approver, `refund ${id}`);
    const approval = await this.#sender.change(
      refund,
      { status: RefundStatus.Requested, approvedBy: approver },
      { actor: approver, reason: `approved by ${approver.id}` },
    );
    if (!approval.changed) throw new ConcurrentModificationError('refund', id);
    return this.#sender.claimAndSend(approval.refund);
  }

  /**
   * Withdraws a refund that was never sent (`pending_approval`, `requested`, `not_sent`), giving back its share of
   * the transaction's total. Anyone may withdraw: it moves no money.
   *
   * @throws InvalidTransitionError when it may have been sent; ConcurrentModificationError when a
   *   claim (or another command) changed it meanwhile
   */
  async cancel(id: string, actor: Principal, reason?: string): Promise<Refund> {
    const refund = await this.get(id);
    const unsent: readonly RefundStatus[] = [
      RefundStatus.PendingApproval,
      RefundStatus.Requested,
      RefundStatus.NotSent,
    ];
    if (!unsent.includes(refund.status)) {
      throw new InvalidTransitionError(
        'refund',
        `refund ${id} is ${refund.status}; only a refund never sent (${unsent.join(', ')}) can be cancelled`,
      );
    }
    const release = releases(refund, { total: true });
    const cancellation = await this.#sender.change(
      refund,
      { status: RefundStatus.Cancelled, ...release.changes },
      {
        actor,
        reason: reason ? `cancelled by ${actor.id}: ${reason}` : `cancelled by ${actor.id}`,
        ...release.change,
      },
    );
    if (!cancellation.changed) throw new ConcurrentModificationError('refund', id);
    return cancellation.refund;
  }

  /**
   * One pass of the sweeper over refunds not yet settled: sends those recorded but never sent (a crash, the
   * provider unreachable, payouts paused), after the same conditional claim, and hands stale claims to a person
   * as `unknown` (refund-sender.ts).
   */
  sweep(
    options: { limit?: number; stopStartingAt?: number } = {},
  ): Promise<{ looked: number; answered: number }> {
    return this.#sender.sweep(options);
  }

  /** Refunds newest first, optionally of one status (`pending_approval`: those waiting for a second person). */
  list(query: { status?: RefundStatus; limit: number; cursor?: string }) {
    return this.#store.list(query);
  }

  async get(id: string): Promise<Refund> {
    const refund = await this.#store.get(id);
    if (!refund) throw new NotFoundError('refund', id);
    return refund;
  }

  /** The refund with its audit trail, oldest event first. */
  async getWithAudit(id: string): Promise<{ refund: Refund; audit: RefundAuditEvent[] }> {
    const refund = await this.get(id);
    return { refund, audit: await this.#store.getAudit(id) };
  }

  #replay(
    existing: Refund,
    requestFingerprint: string,
    idempotencyKey: string,
  ): Promise<RequestRefundResult> {
    if (existing.requestFingerprint !== requestFingerprint) {
      throw new IdempotencyConflictError('refund', idempotencyKey, existing.id);
    }
    return this.#sender.resume(existing).then((refund) => ({ refund, replayed: true }));
  }
}
