import { toNaira } from '../money.js';
import type { Principal } from '../payouts/model.js';
import type { ProviderClient } from '../provider/client.js';
import {
  ProviderInvalidRequestError,
  ProviderRejectedError,
  ProviderUnavailableError,
} from '../provider/errors.js';
import { type Clock, systemClock } from '../shared/clock.js';
import { fingerprint, ulid } from '../shared/ids.js';
import { type Logger, silentLogger } from '../shared/logger.js';
import {
  RefundConcurrentModificationError,
  RefundIdempotencyConflictError,
  RefundNotFoundError,
} from './errors.js';
import {
  type CreateRefundRequest,
  MAX_REFUND_SEND_ATTEMPTS,
  REFUND_SENDING_LEASE_MS,
  type Refund,
  RefundStatus,
} from './model.js';
import type { DynamoDbRefundStore } from './refund-store.js';

export interface RefundServiceOptions {
  readonly store: DynamoDbRefundStore;
  readonly provider: Pick<ProviderClient, 'refunds'>;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

export interface RequestRefundResult {
  readonly refund: Refund;
  /** True when the key had been used before with the same request: nothing new was sent. */
  readonly replayed: boolean;
}

/**
 * Refund requests: recorded once per idempotency key, then sent to the provider at most once. Sending starts
 * with a conditional claim (`requested`/`not_sent` -> `sending`), so a replay of a refund that was recorded but
 * never sent (a crash, or the provider unreachable) sends it, and concurrent replays send it once. A refund
 * that may have reached the provider (`unknown`, or a claim past its lease) is never resent: a person checks.
 *
 * @example
 * const service = new RefundService({ store, provider });
 * const { refund } = await service.request({ request, idempotencyKey: 'rf-1', actor });
 */
export class RefundService {
  readonly #store: DynamoDbRefundStore;
  readonly #provider: Pick<ProviderClient, 'refunds'>;
  readonly #clock: Clock;
  readonly #logger: Logger;

  constructor(options: RefundServiceOptions) {
    this.#store = options.store;
    this.#provider = options.provider;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
  }

  async request(command: {
    request: CreateRefundRequest;
    idempotencyKey: string;
    actor: Principal;
  }): Promise<RequestRefundResult> {
    const now = this.#clock.now();
    const at = now.toISOString();
    const requestFingerprint = fingerprint(command.request);
    const refund: Refund = {
      id: ulid(now),
      idempotencyKey: command.idempotencyKey,
      requestFingerprint,
      transactionId: command.request.transactionId,
      amountKobo: command.request.amount,
      customerNote: command.request.customerNote,
      merchantNote: command.request.merchantNote,
      status: RefundStatus.Requested,
      version: 1,
      requestedBy: command.actor,
      createdAt: at,
      updatedAt: at,
    };
    const outcome = await this.#store.create(refund);
    if (!outcome.created) {
      if (outcome.existing.requestFingerprint !== requestFingerprint) {
        throw new RefundIdempotencyConflictError(command.idempotencyKey, outcome.existing.id);
      }
      return { refund: await this.#resume(outcome.existing), replayed: true };
    }
    return { refund: await this.#claimAndSend(refund), replayed: false };
  }

  /**
   * One pass of the sweeper over refunds not yet settled: sends those recorded but never sent (a crash, or the
   * provider unreachable), after the same conditional claim, and hands stale claims to a person as `unknown`.
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

  async get(id: string): Promise<Refund> {
    const refund = await this.#store.get(id);
    if (!refund) throw new RefundNotFoundError(id);
    return refund;
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
      const { refund: current } = await this.#change(refund, {
        status: RefundStatus.Unknown,
        failure: { code: 'SENDING_LEASE_EXPIRED', message },
      });
      return current;
    }
    return refund;
  }

  /** Only the request whose claim commits calls the provider; the others return the refund as it stands. */
  async #claimAndSend(refund: Refund): Promise<Refund> {
    const claimId = ulid(this.#clock.now());
    const claim = await this.#change(refund, {
      status: RefundStatus.Sending,
      sendAttempts: (refund.sendAttempts ?? 0) + 1,
      claimId,
    });
    // Our own claim, committed by a request whose answer was lost and refused on the SDK's retry, is ours to send.
    const ours = claim.refund.status === RefundStatus.Sending && claim.refund.claimId === claimId;
    return claim.changed || ours ? this.#send(claim.refund) : claim.refund;
  }

  /** A conditional change; when another request changed the refund first, the refund as it now stands. */
  async #change(refund: Refund, changes: Partial<Refund>): Promise<{ changed: boolean; refund: Refund }> {
    const after: Refund = {
      ...refund,
      ...changes,
      version: refund.version + 1,
      updatedAt: this.#clock.now().toISOString(),
    };
    try {
      return { changed: true, refund: await this.#store.update(refund, after) };
    } catch (error) {
      if (!(error instanceof RefundConcurrentModificationError)) throw error;
      return { changed: false, refund: (await this.#store.get(refund.id)) ?? refund };
    }
  }

  async #send(refund: Refund): Promise<Refund> {
    let changes: Partial<Refund>;
    try {
      const { data } = await this.#provider.refunds.create({
        transactionId: refund.transactionId,
        amount: toNaira(refund.amountKobo),
        customerNote: refund.customerNote,
        merchantNote: refund.merchantNote,
      });
      changes = { status: RefundStatus.Pending, providerRefundId: data.id, providerStatus: data.status };
    } catch (error) {
      changes = { ...classify(error), failure: failureOf(error) };
      const attempts = refund.sendAttempts ?? 0;
      if (changes.status === RefundStatus.NotSent && attempts >= MAX_REFUND_SEND_ATTEMPTS) {
        changes = {
          ...changes,
          failure: {
            code: 'SEND_ATTEMPTS_EXHAUSTED',
            message: `the provider could not take the refund in ${attempts} attempts (last: ${changes.failure?.message ?? 'unavailable'}); nothing was sent and the sweeper stopped retrying; replaying the request tries once more`,
          },
        };
        this.#logger.error('refund retries exhausted', { refundId: refund.id, attempts });
      }
      this.#logger.warn('refund not accepted by the provider', {
        refundId: refund.id,
        status: changes.status,
        code: changes.failure?.code,
      });
    }
    return (await this.#change(refund, changes)).refund;
  }
}

function classify(error: unknown): { status: RefundStatus } {
  if (error instanceof ProviderRejectedError || error instanceof ProviderInvalidRequestError) {
    return { status: RefundStatus.Rejected };
  }
  if (error instanceof ProviderUnavailableError) return { status: RefundStatus.NotSent };
  return { status: RefundStatus.Unknown };
}

function failureOf(error: unknown): { code: string; message: string } {
  if (error instanceof ProviderRejectedError) {
    return { code: error.code, message: error.providerMessage ?? `provider answered ${error.status}` };
  }
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') {
    return { code: error.code, message: error.message };
  }
  return { code: 'UNEXPECTED', message: error instanceof Error ? error.message : String(error) };
}
