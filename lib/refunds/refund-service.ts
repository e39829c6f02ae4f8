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
import { RefundIdempotencyConflictError, RefundNotFoundError } from './errors.js';
import { type CreateRefundRequest, type Refund, RefundStatus } from './model.js';
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
 * Refund requests: recorded once per idempotency key, then sent to the provider once. A replay returns the
 * recorded refund and never sends again, whatever its state; an `unknown` refund is left to a person.
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
      return { refund: outcome.existing, replayed: true };
    }
    return { refund: await this.#send(refund), replayed: false };
  }

  async get(id: string): Promise<Refund> {
    const refund = await this.#store.get(id);
    if (!refund) throw new RefundNotFoundError(id);
    return refund;
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
      this.#logger.warn('refund not accepted by the provider', {
        refundId: refund.id,
        status: changes.status,
        code: changes.failure?.code,
      });
    }
    const after: Refund = {
      ...refund,
      ...changes,
      version: refund.version + 1,
      updatedAt: this.#clock.now().toISOString(),
    };
    return this.#store.update(refund, after);
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
