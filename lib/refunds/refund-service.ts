import { toNaira } from '../money.js';
import { defaultEngineConfig, type EngineConfig } from '../payouts/config.js';
import { DailyCapExceededError, PayoutsPausedError } from '../payouts/errors.js';
import { admit, assertMayApprove, type GateLimits, MoneyEntryPoint } from '../payouts/gate.js';
import { type Principal, systemPrincipal } from '../payouts/model.js';
import type { ProviderClient } from '../provider/client.js';
import { type Clock, systemClock } from '../shared/clock.js';
import {
  ConcurrentModificationError,
  IdempotencyConflictError,
  InvalidTransitionError,
  isConcurrentModificationOf,
  NotFoundError,
} from '../shared/errors.js';
import { fingerprint, ulid } from '../shared/ids.js';
import { type Logger, silentLogger } from '../shared/logger.js';
import { calendarDayIn } from '../shared/wall-clock.js';
import { amountPaidOn } from './amount-paid.js';
import { RefundExceedsAmountPaidError } from './errors.js';
import {
  type CreateRefundRequest,
  MAX_REFUND_SEND_ATTEMPTS,
  REFUND_CAP_KEY,
  REFUND_SENDING_LEASE_MS,
  type Refund,
  type RefundAuditEvent,
  RefundStatus,
} from './model.js';
import type { DynamoDbRefundStore, RefundChange } from './refund-store.js';
import { classify, failureOf, releases } from './send-outcome.js';

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

const sender = systemPrincipal('refunds');

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

  constructor(options: RefundServiceOptions) {
    this.#store = options.store;
    this.#provider = options.provider;
    this.#limits = options.limits ?? defaultEngineConfig;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
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
    return { refund: await this.#claimAndSend(refund), replayed: false };
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
    const approval = await this.#change(
      refund,
      { status: RefundStatus.Requested, approvedBy: approver },
      { actor: approver, reason: `approved by ${approver.id}` },
    );
    if (!approval.changed) throw new ConcurrentModificationError('refund', id);
    return this.#claimAndSend(approval.refund);
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
    const cancellation = await this.#change(
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
   * as `unknown`.
   */
  async sweep(
    options: { limit?: number; stopStartingAt?: number } = {},
  ): Promise<{ looked: number; answered: number }> {
    const due = await this.#store.due(this.#clock.now().toISOString(), options.limit ?? 50);
    let answered = 0;
    for (const refund of due) {
      if (options.stopStartingAt !== undefined && Date.now() >= options.stopStartingAt) break;
      const after = await this.#resume(refund);
      if (after.status === RefundStatus.Pending || after.status === RefundStatus.Rejected) answered++;
    }
    if (due.length > 0) this.#logger.info('refund sweep', { looked: due.length, answered });
    return { looked: due.length, answered };
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
    return this.#resume(existing).then((refund) => ({ refund, replayed: true }));
  }

  /** A replayed request: send what was never sent; a claim that outlived its lease may have reached the provider. */
  async #resume(refund: Refund): Promise<Refund> {
    if (refund.status === RefundStatus.Requested || refund.status === RefundStatus.NotSent) {
      return this.#claimAndSend(refund);
    }
    const now = this.#clock.now();
    if (
      refund.status === RefundStatus.Sending &&
      now.getTime() - Date.parse(refund.updatedAt) > REFUND_SENDING_LEASE_MS
    ) {
      const message =
        'the request that was sending it stopped without recording an answer; check the provider';
      // Money may have moved: the refund keeps its share of the transaction's total and of the daily cap.
      const { refund: current } = await this.#change(
        refund,
        { status: RefundStatus.Unknown, failure: { code: 'SENDING_LEASE_EXPIRED', message } },
        { actor: sender, reason: message },
      );
      return current;
    }
    return refund;
  }

  /**
   * Only the request whose claim commits calls the provider; the others return the refund as it stands. The claim
   * commits with the pause check and the reservation on the `merchant` daily cap (and, for a refund whose share of
   * the transaction's total was released when the sweeper gave up on it, that share again).
   */
  async #claimAndSend(refund: Refund): Promise<Refund> {
    const now = this.#clock.now();
    if (refund.amountKobo > this.#limits.dailyCapKobo) return this.#refuseForCap(refund);
    const claimId = ulid(now);
    const capDay = calendarDayIn(this.#limits.capTimeZone, now);
    // Refunds stored before the total was kept (`countsInTotal` absent) were accepted without it and stay so.
    const reserveShare = refund.countsInTotal === false;
    let claim: { changed: boolean; refund: Refund };
    try {
      claim = await this.#change(
        refund,
        {
          status: RefundStatus.Sending,
          sendAttempts: (refund.sendAttempts ?? 0) + 1,
          claimId,
          capDay,
          ...(reserveShare && { countsInTotal: true }),
        },
        {
          actor: sender,
          reason: `claimed for sending, attempt ${(refund.sendAttempts ?? 0) + 1}`,
          requireNotPaused: true,
          cap: {
            capKey: REFUND_CAP_KEY,
            day: capDay,
            deltaKobo: refund.amountKobo,
            limitKobo: this.#limits.dailyCapKobo,
          },
          ...(reserveShare && { totalDeltaKobo: refund.amountKobo }),
        },
      );
    } catch (error) {
      if (error instanceof PayoutsPausedError) {
        this.#logger.info('refund waits: payouts are paused', { refundId: refund.id });
        return refund;
      }
      if (error instanceof DailyCapExceededError) return this.#refuseForCap(refund);
      if (error instanceof RefundExceedsAmountPaidError) {
        return this.#refuse(refund, { code: 'REFUND_TOTAL_EXCEEDED', message: error.message });
      }
      throw error;
    }
    // Our own claim, committed by a request whose answer was lost and refused on the SDK's retry, is ours to send.
    const ours = claim.refund.status === RefundStatus.Sending && claim.refund.claimId === claimId;
    return claim.changed || ours ? this.#send(claim.refund) : claim.refund;
  }

  #refuseForCap(refund: Refund): Promise<Refund> {
    const message = `the daily cap of ${this.#limits.dailyCapKobo} kobo for ${REFUND_CAP_KEY} would be exceeded; nothing was sent`;
    this.#logger.warn('daily cap exceeded', { refundId: refund.id, capKey: REFUND_CAP_KEY });
    return this.#refuse(refund, { code: 'DAILY_CAP_EXCEEDED', message });
  }

  /** Ends a refund that was never sent as `rejected`, returning its share of the transaction's total. */
  async #refuse(refund: Refund, failure: { code: string; message: string }): Promise<Refund> {
    const release = releases(refund, { total: true });
    const { refund: current } = await this.#change(
      refund,
      { status: RefundStatus.Rejected, failure, ...release.changes },
      { actor: sender, reason: failure.message, ...release.change },
    );
    return current;
  }

  /** A conditional change with its audit event; when another request changed the refund first, it as it stands. */
  async #change(
    refund: Refund,
    changes: Partial<Refund>,
    spec: Omit<RefundChange, 'audit'> & { actor: Principal; reason: string },
  ): Promise<{ changed: boolean; refund: Refund }> {
    const at = this.#clock.now().toISOString();
    const after: Refund = { ...refund, ...changes, version: refund.version + 1, updatedAt: at };
    const { actor, reason, ...controls } = spec;
    const audit: RefundAuditEvent = {
      refundId: refund.id,
      sequence: after.version,
      at,
      actor,
      from: refund.status,
      to: after.status,
      reason,
    };
    try {
      return { changed: true, refund: await this.#store.update(refund, after, { ...controls, audit }) };
    } catch (error) {
      if (!isConcurrentModificationOf(error, 'refund')) throw error;
      return { changed: false, refund: (await this.#store.get(refund.id)) ?? refund };
    }
  }

  async #send(refund: Refund): Promise<Refund> {
    let changes: Partial<Refund>;
    let reason: string;
    let release: ReturnType<typeof releases> | undefined;
    try {
      const { data } = await this.#provider.refunds.create({
        transactionId: refund.transactionId,
        amount: toNaira(refund.amountKobo),
        customerNote: refund.customerNote,
        merchantNote: refund.merchantNote,
      });
      changes = { status: RefundStatus.Pending, providerRefundId: data.id, providerStatus: data.status };
      reason = `the provider accepted the refund (${data.id})`;
    } catch (error) {
      changes = { ...classify(error), failure: failureOf(error) };
      const attempts = refund.sendAttempts ?? 0;
      const exhausted = changes.status === RefundStatus.NotSent && attempts >= MAX_REFUND_SEND_ATTEMPTS;
      if (exhausted) {
        changes = {
          ...changes,
          failure: {
            code: 'SEND_ATTEMPTS_EXHAUSTED',
            message: `the provider could not take the refund in ${attempts} attempts (last: ${changes.failure?.message ?? 'unavailable'}); nothing was sent and the sweeper stopped retrying; replaying the request tries once more`,
          },
        };
        this.#logger.error('refund retries exhausted', { refundId: refund.id, attempts });
      }
      // Nothing was sent: the day's cap is given back (the next claim takes it again); a refused refund, or one
      // the sweeper gave up on, also gives back its share of the transaction's total. `unknown` keeps both.
      if (changes.status === RefundStatus.Rejected || changes.status === RefundStatus.NotSent) {
        release = releases(refund, { total: changes.status === RefundStatus.Rejected || exhausted });
      }
      reason = `${changes.status === RefundStatus.Unknown ? 'the provider may have acted' : 'nothing was sent'}: ${changes.failure?.message ?? 'no answer'}`;
      this.#logger.warn('refund not accepted by the provider', {
        refundId: refund.id,
        status: changes.status,
        code: changes.failure?.code,
      });
    }
    const recorded = await this.#change(
      refund,
      { ...changes, ...release?.changes },
      { actor: sender, reason, ...release?.change },
    );
    return recorded.refund;
  }
}
