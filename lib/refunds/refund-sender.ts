import type { GateLimits } from '../controls/index.js';
import {
  DailyCapExceededError,
  PayoutsPausedError,
  type Principal,
  systemPrincipal,
} from '../controls/index.js';
import { toNaira } from '../money.js';
import type { EngineConfig } from '../payouts/index.js';
import type { ProviderClient } from '../provider/index.js';
import type { Clock } from '../shared/clock.js';
import { ConcurrentModificationError, isConcurrentModificationOf } from '../shared/errors.js';
import { ulid } from '../shared/ids.js';
import type { Logger } from '../shared/logger.js';
import { type SendWindow, sendWindowPassed } from '../shared/send-window.js';
import { calendarDayIn } from '../shared/wall-clock.js';
import { RefundExceedsAmountPaidError } from './errors.js';
import {
  MAX_REFUND_SEND_ATTEMPTS,
  REFUND_CAP_COUNTER,
  REFUND_SEND_DEADLINE_MS,
  REFUND_SENDING_LEASE_MS,
  type Refund,
  type RefundAuditEvent,
  RefundStatus,
} from './model.js';
import type { RefundChange, RefundStore } from './refund-store.js';
import { classify, failureOf, releases } from './send-outcome.js';

/** The limits a refund is judged by: the payout engine's gate and its daily cap. */
export type RefundLimits = GateLimits & Pick<EngineConfig, 'dailyCapKobo' | 'capTimeZone'>;

export interface RefundSenderOptions {
  readonly store: RefundStore;
  readonly provider: Pick<ProviderClient, 'refunds'>;
  readonly limits: RefundLimits;
  readonly clock: Clock;
  readonly logger: Logger;
}

const sender = systemPrincipal('refunds');

const TOO_LATE =
  'the send window passed before the provider was called: nothing was sent; the claim is given back, and the refund waits for the sweep as before it';

/**
 * Sends refunds: the conditional claim (with the pause check and the daily cap), the provider call at most once,
 * and the recorded answer; every change with its audit event. RefundService (the ops API's requests, approvals
 * and cancellations) sends through it; the sweep function uses it alone, so its bundle carries no request path.
 *
 * @example
 * const sending = new RefundSender({ store, provider, limits: engine.ctx.config, clock, logger });
 * await sending.sweep({ stopStartingAt });
 */
export class RefundSender {
  readonly #store: RefundStore;
  readonly #provider: Pick<ProviderClient, 'refunds'>;
  readonly #limits: RefundLimits;
  readonly #clock: Clock;
  readonly #logger: Logger;

  constructor(options: RefundSenderOptions) {
    this.#store = options.store;
    this.#provider = options.provider;
    this.#limits = options.limits;
    this.#clock = options.clock;
    this.#logger = options.logger;
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
      const after = await this.resume(refund);
      if (after.status === RefundStatus.Pending || after.status === RefundStatus.Rejected) answered++;
    }
    if (due.length > 0) this.#logger.info('refund sweep', { looked: due.length, answered });
    return { looked: due.length, answered };
  }

  /**
   * A replayed request (or the sweep): send what was never sent, within `window` when the caller must answer by a
   * deadline; a claim that outlived its lease may have reached the provider.
   */
  async resume(refund: Refund, window?: SendWindow): Promise<Refund> {
    if (refund.status === RefundStatus.Requested || refund.status === RefundStatus.NotSent) {
      return this.claimAndSend(refund, window);
    }
    const now = this.#clock.now();
    if (
      refund.status === RefundStatus.Sending &&
      now.getTime() - Date.parse(refund.updatedAt) > REFUND_SENDING_LEASE_MS
    ) {
      const message =
        'the request that was sending it stopped without recording an answer; check the provider';
      // Money may have moved: the refund keeps its share of the transaction's total and of the daily cap.
      const { refund: current } = await this.change(
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
   *
   * With a `window` (the API's request deadline, lib/api/request-deadline.ts), as for an inline payout: past
   * `sendBy` nothing is claimed or sent and the refund is left as it is (`requested`) for the sweep; a claim that
   * committed past it is given back unsent; the provider call is abandoned at `window.deadlineMs`. Without one
   * the call is abandoned at REFUND_SEND_DEADLINE_MS, which the sweep's stop margin is sized for.
   */
  async claimAndSend(refund: Refund, window?: SendWindow): Promise<Refund> {
    if (sendWindowPassed(window)) {
      this.#logger.info('refund left for the sweep: send window passed', { refundId: refund.id });
      return refund;
    }
    const now = this.#clock.now();
    if (refund.amountKobo > this.#limits.dailyCapKobo) return this.#refuseForCap(refund);
    const claimId = ulid(now);
    const capDay = calendarDayIn(this.#limits.capTimeZone, now);
    // Refunds stored before the total was kept (`countsInTotal` absent) were accepted without it and stay so.
    const reserveShare = refund.countsInTotal === false;
    let claim: { changed: boolean; refund: Refund };
    try {
      claim = await this.change(
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
            capKey: REFUND_CAP_COUNTER,
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
    if (!claim.changed && !ours) return claim.refund;
    // The claim's write may have taken the window's time: a call started now could outlast the request.
    if (sendWindowPassed(window)) return this.#giveBack(claim.refund, refund, reserveShare);
    return this.#send(claim.refund, window?.deadlineMs ?? REFUND_SEND_DEADLINE_MS);
  }

  /**
   * Undoes a claim that was never sent: back to the status, attempts and share it had before (`before`), with the
   * day's cap reservation the claim took given back, so the sweep sends it as it would have.
   */
  async #giveBack(claimed: Refund, before: Refund, reservedShare: boolean): Promise<Refund> {
    const release = releases(claimed, { total: reservedShare });
    this.#logger.info('refund claim given back: send window passed', { refundId: claimed.id });
    const { refund: current } = await this.change(
      claimed,
      { status: before.status, sendAttempts: before.sendAttempts, ...release.changes },
      { actor: sender, reason: TOO_LATE, ...release.change },
    );
    return current;
  }

  #refuseForCap(refund: Refund): Promise<Refund> {
    const message = `the daily cap of ${this.#limits.dailyCapKobo} kobo for ${REFUND_CAP_COUNTER} would be exceeded; nothing was sent`;
    this.#logger.warn('daily cap exceeded', { refundId: refund.id, capKey: REFUND_CAP_COUNTER });
    return this.#refuse(refund, { code: 'DAILY_CAP_EXCEEDED', message });
  }

  /** Ends a refund that was never sent as `rejected`, returning its share of the transaction's total. */
  async #refuse(refund: Refund, failure: { code: string; message: string }): Promise<Refund> {
    const release = releases(refund, { total: true });
    const { refund: current } = await this.change(
      refund,
      { status: RefundStatus.Rejected, failure, ...release.changes },
      { actor: sender, reason: failure.message, ...release.change },
    );
    return current;
  }

  /** A conditional change with its audit event; when another request changed the refund first, it as it stands. */
  async change(
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

  /** The provider call, abandoned at `deadlineMs` (retries and credential reads included), and its recorded answer. */
  async #send(refund: Refund, deadlineMs: number): Promise<Refund> {
    let changes: Partial<Refund>;
    let reason: string;
    let release: ReturnType<typeof releases> | undefined;
    try {
      const { data } = await this.#provider.refunds.create(
        {
          transactionId: refund.transactionId,
          amount: toNaira(refund.amountKobo),
          customerNote: refund.customerNote,
          merchantNote: refund.merchantNote,
        },
        { deadlineMs },
      );
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
    const recorded = await this.change(
      refund,
      { ...changes, ...release?.changes },
      { actor: sender, reason, ...release?.change },
    );
    return recorded.refund;
  }
}

/** The refund a change wrote. @throws ConcurrentModificationError when another command changed it first */
export function changedRefund(outcome: { readonly changed: boolean; readonly refund: Refund }): Refund {
  if (!outcome.changed) throw new ConcurrentModificationError('refund', outcome.refund.id);
  return outcome.refund;
}
