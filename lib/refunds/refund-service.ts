import type { Principal } from '../controls/index.js';
import { judge } from '../controls/index.js';
import { defaultEngineConfig } from '../payouts/index.js';
import type { ProviderClient } from '../provider/index.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { IdempotencyConflictError, InvalidTransitionError, NotFoundError } from '../shared/errors.js';
import { fingerprint, ulid } from '../shared/ids.js';
import { type Logger, silentLogger } from '../shared/logger.js';
import type { SendWindow } from '../shared/send-window.js';
import { amountPaidWithin } from './amount-paid.js';
import { RefundExceedsAmountPaidError } from './errors.js';
import {
  type CreateRefundRequest,
  describeRefund,
  type Refund,
  type RefundAuditEvent,
  type RefundResolution,
  RefundStatus,
} from './model.js';
import { changedRefund, type RefundLimits, RefundSender } from './refund-sender.js';

export type { RefundLimits } from './refund-sender.js';

import { type ApprovalDeps, approveRefund, rejectRefund } from './refund-approval.js';
import { resolveUnknownRefund } from './refund-resolution.js';
import type { RefundStore } from './refund-store.js';
import { releases } from './send-outcome.js';

/** The engine's limits refunds obey: the gate's maximum and threshold, and the merchant's daily cap. */

export interface RefundServiceOptions {
  readonly store: RefundStore;
  readonly provider: Pick<ProviderClient, 'refunds' | 'transactions'>;
  /** The payout engine's limits (the runtime passes its engine config); the engine's defaults otherwise. */
  readonly limits?: RefundLimits;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

/** The bound of a send made for a caller that must answer by a deadline (the API: `request.deadline.sendWindow`). */
export interface InlineSendOptions {
  /** Past `sendBy` nothing is sent (the refund waits in `requested` for the sweep); a call has `deadlineMs`. */
  readonly sendWindow?: SendWindow;
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
 * - A refund that may have reached the provider (`unknown`, or a claim past its lease) is never resent; a person
 *   settles it with `resolve`, which a second person confirms.
 * - A caller with a deadline passes its `sendWindow`: past it nothing is sent and the sweep sends the refund; the
 *   read of the transaction is abandoned when a send started at the window's last instant would end, before
 *   anything is recorded (DeadlineExceededError).
 * - Every change writes its audit event in the same transaction.
 *
 * @example
 * const service = new RefundService({ store, provider, limits: engine.ctx.config });
 * const { refund } = await service.request({ request, idempotencyKey: 'rf-1', actor });
 * await service.approve(refund.id, bob); // when refund.status is 'pending_approval'
 */
export class RefundService {
  readonly #store: RefundStore;
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
   * With a `sendWindow`, the read of the transaction (what was paid) is bounded by it too (amountPaidWithin,
   * readWithinWindowMs in lib/shared/send-window.ts): it ends no later than an inline send started at the window's
   * last instant would.
   *
   * @throws ValidationError (above the maximum), RefundTransactionNotRefundableError,
   *   RefundExceedsAmountPaidError, IdempotencyConflictError, DeadlineExceededError (the read ran out of the
   *   window); nothing is stored or sent then
   */
  async request(
    command: {
      request: CreateRefundRequest;
      idempotencyKey: string;
      actor: Principal;
    },
    options: InlineSendOptions = {},
  ): Promise<RequestRefundResult> {
    const { request, idempotencyKey, actor } = command;
    const window = options.sendWindow;
    const decision = judge(this.#limits, describeRefund({ amountKobo: request.amount }, actor));
    const requestFingerprint = fingerprint(request);
    const recorded = await this.#store.findByIdempotencyKey(idempotencyKey);
    if (recorded) return this.#replay(recorded, requestFingerprint, idempotencyKey, window);

    // Within the same window as the inline send: a provider slow to answer the read is abandoned in time for the API
    // to answer (503 request-deadline, nothing recorded, so the retry with the same key starts afresh).
    const amountPaidKobo = await amountPaidWithin(this.#provider, request.transactionId, window);
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
    if (!outcome.created) return this.#replay(outcome.existing, requestFingerprint, idempotencyKey, window);
    if (status === RefundStatus.PendingApproval) {
      this.#logger.info('refund waits for approval', { refundId: refund.id });
      return { refund, replayed: false };
    }
    return { refund: await this.#sender.claimAndSend(refund, window), replayed: false };
  }

  /**
   * A second person approves a refund waiting in `pending_approval`: the gate again with the limits in force now,
   * then sent at once, or only recorded as the first of two approvals (refund-approval.ts).
   *
   * @throws ApprovalForbiddenError when the approver is the requester (by stable identity) or not a person, the
   *   amount is above the approver's limit, or the approver gave the first approval already
   * @throws InvalidTransitionError when the refund is not waiting for approval
   * @throws ValidationError naming `amount` when the amount is above the per-payout maximum in force now
   */
  async approve(id: string, approver: Principal, options: InlineSendOptions = {}): Promise<Refund> {
    return approveRefund(this.#decisions(), await this.get(id), approver, options.sendWindow);
  }

  /**
   * Rejects a refund waiting for approval, with the reason: it ends `cancelled`, for good, nothing sent
   * (refund-approval.ts). Its requester withdraws their own with a cancel.
   *
   * @throws ApprovalForbiddenError (its requester, or not a person); InvalidTransitionError unless
   *   pending_approval; ConcurrentModificationError when another command changed it meanwhile
   */
  async reject(id: string, approver: Principal, reason: string): Promise<Refund> {
    return rejectRefund(this.#decisions(), await this.get(id), approver, reason);
  }

  #decisions(): ApprovalDeps {
    return { sender: this.#sender, limits: this.#limits, clock: this.#clock, logger: this.#logger };
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
    return changedRefund(
      await this.#sender.change(
        refund,
        { status: RefundStatus.Cancelled, ...release.changes },
        {
          actor,
          reason: reason ? `cancelled by ${actor.id}: ${reason}` : `cancelled by ${actor.id}`,
          ...release.change,
        },
      ),
    );
  }

  /**
   * A person settles an `unknown` refund after checking the provider's records by hand; it takes two people, the
   * second confirming the first's decision (refund-resolution.ts).
   *
   * @throws InvalidTransitionError unless the refund is `unknown`; ValidationError for a blank note;
   *   ApprovalForbiddenError when the proposer (or a system) confirms; ConcurrentModificationError when the refund
   *   changed meanwhile
   */
  async resolve(
    id: string,
    actor: Principal,
    decision: RefundResolution,
  ): Promise<{ refund: Refund; applied: boolean }> {
    const refund = await this.get(id);
    return resolveUnknownRefund({ sender: this.#sender, clock: this.#clock }, refund, actor, decision);
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
    window: SendWindow | undefined,
  ): Promise<RequestRefundResult> {
    if (existing.requestFingerprint !== requestFingerprint) {
      throw new IdempotencyConflictError('refund', idempotencyKey, existing.id);
    }
    return this.#sender.resume(existing, window).then((refund) => ({ refund, replayed: true }));
  }
}
