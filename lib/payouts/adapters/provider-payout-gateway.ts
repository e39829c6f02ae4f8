import { MoneyError, toKobo, toNaira, toWholeNaira } from '../../money.js';
import {
  type ProviderClient,
  ProviderInvalidRequestError,
  ProviderMalformedResponseError,
  ProviderOutcomeUnknownError,
  ProviderRejectedError,
  ProviderUnavailableError,
  UnavailableReason,
} from '../../provider/index.js';
import {
  type FindOutcome,
  type PayoutGateway,
  payoutMarker,
  providerAttemptOf,
  type RecordCheck,
  type SearchWindow,
  type SendOptions,
  type SendOutcome,
} from '../gateway.js';
import type { Payout, ProviderReceipt } from '../model.js';
import { ProviderRecordSearch } from './provider-record-search.js';

/** A look-up asked of a gateway that only sends: a wiring mistake, never a provider's answer. */
class SendOnlyGatewayError extends Error {
  override readonly name = 'SendOnlyGatewayError';
  constructor() {
    super('this function sends payouts only: it looks up no provider records');
  }
}

/** The fields every money-moving provider answer has, from which a receipt is built. */
interface OperationResult {
  readonly transactionId: string;
  readonly status: string;
  readonly charges: number;
  readonly paidAt: string;
  readonly reference?: string;
  readonly sessionId?: string;
  readonly totalCharges?: number;
}

/**
 * The provider resources a payout is sent and looked up with: a `ProviderClient`, or just these resources on a
 * `ProviderConnection` (lib/runtime/runtime.ts), so a function that sends payouts carries no other resource.
 */
export type PayoutProvider = Pick<
  ProviderClient,
  'prepare' | 'settlements' | 'wallets' | 'childAccounts' | 'transactions'
>;

/**
 * Maps each payout type to its provider endpoint, and every provider answer or failure to a SendOutcome.
 * Every request carries the payout's marker in its narration and its id in metadata, so a payout whose
 * answer was lost can be found again: the provider has no idempotency key.
 *
 * It sends and looks up nothing: a function that only sends (the sweeper, `sendingEngineOf` in
 * lib/runtime/engines.ts) carries no record search in its bundle (~5.6 KB). ProviderPayoutGateway adds it.
 */
export class ProviderPayoutSender implements PayoutGateway {
  constructor(
    protected readonly client: PayoutProvider,
    protected readonly options: { requestTimeoutMs?: number } = {},
  ) {}

  prepare(): void {
    this.client.prepare();
  }

  async send(payout: Payout, sendOptions?: SendOptions): Promise<SendOutcome> {
    let call: () => Promise<OperationResult>;
    try {
      call = this.#callFor(payout, sendOptions);
    } catch (error) {
      if (error instanceof MoneyError)
        return { kind: 'rejected', code: 'INVALID_AMOUNT', message: error.message };
      throw error;
    }
    try {
      const result = await call();
      if (result.status !== 'SUCCESS') {
        return {
          kind: 'unknown',
          code: 'PROVIDER_STATUS_NOT_FINAL',
          message: `provider answered status ${result.status}`,
        };
      }
      return { kind: 'succeeded', receipt: receiptOf(result) };
    } catch (error) {
      return outcomeOfError(error);
    }
  }

  /** A sender looks nothing up; a function whose path does is given ProviderPayoutGateway. */
  find(_payout: Payout, _window: SearchWindow): Promise<FindOutcome> {
    return Promise.reject(new SendOnlyGatewayError());
  }

  check(_payout: Payout, _transactionId: string): Promise<RecordCheck> {
    return Promise.reject(new SendOnlyGatewayError());
  }

  #options(sendOptions?: SendOptions) {
    return { timeoutMs: this.options.requestTimeoutMs, deadlineMs: sendOptions?.deadlineMs };
  }

  /** Converts amounts before anything is sent, so a conversion error can never follow a sent request. */
  #callFor(payout: Payout, sendOptions: SendOptions | undefined): () => Promise<OperationResult> {
    const narration = `${payout.narration} ${payoutMarker(payout.id, providerAttemptOf(payout))}`;
    const metadata = { ...payout.metadata, payoutId: payout.id, idempotencyKey: payout.idempotencyKey };
    const options = this.#options(sendOptions);
    const { instruction } = payout;
    switch (instruction.type) {
      case 'bank_transfer': {
        const amount = toNaira(payout.amountKobo);
        return async () =>
          (
            await this.client.settlements.instantPayout(
              { amount, ...instruction.beneficiary, narration, metadata },
              options,
            )
          ).data;
      }
      case 'wallet_transfer': {
        const amount = toWholeNaira(payout.amountKobo);
        return async () =>
          (
            await this.client.wallets.transfer(
              {
                fromWalletId: instruction.sourceWalletId,
                toWalletId: instruction.destinationWalletId,
                amount,
                narration,
                metadata,
              },
              options,
            )
          ).data;
      }
      case 'wallet_credit': {
        const amount = toWholeNaira(payout.amountKobo);
        return async () =>
          (
            await this.client.wallets.credit(
              { walletId: instruction.walletId, amount, narration, metadata },
              options,
            )
          ).data;
      }
      case 'wallet_debit': {
        const amount = toWholeNaira(payout.amountKobo);
        return async () =>
          (
            await this.client.wallets.debit(
              { walletId: instruction.walletId, amount, narration, metadata },
              options,
            )
          ).data;
      }
      case 'child_debit': {
        const amount = toNaira(payout.amountKobo);
        return async () =>
          (
            await this.client.childAccounts.debit(
              { childAccountId: instruction.childAccountId, amount, narration, metadata },
              options,
            )
          ).data;
      }
      case 'child_bank_transfer': {
        const amount = toNaira(payout.amountKobo);
        return async () =>
          (
            await this.client.childAccounts.bankTransfer(
              {
                childAccountId: instruction.childAccountId,
                amount,
                ...instruction.beneficiary,
                narration,
                metadata,
              },
              options,
            )
          ).data;
      }
    }
  }
}

function receiptOf(result: OperationResult): ProviderReceipt {
  return {
    transactionId: result.transactionId,
    status: result.status,
    chargesKobo: toKobo(result.totalCharges ?? result.charges),
    paidAt: result.paidAt,
    ...(result.reference && { reference: result.reference }),
    ...(result.sessionId && { sessionId: result.sessionId }),
  };
}

/**
 * The one place that decides what a provider failure means for money. 401 and 403 are "not sent": the
 * provider did nothing, and the fix is credentials, not failing the payout.
 */
export function outcomeOfError(error: unknown): SendOutcome {
  if (error instanceof ProviderRejectedError) {
    if (error.status === 401 || error.status === 403) {
      return { kind: 'not_sent', code: `PROVIDER_${error.status}`, message: error.message };
    }
    return {
      kind: 'rejected',
      code: `PROVIDER_${error.status}`,
      message: error.providerMessage ?? error.message,
    };
  }
  if (error instanceof ProviderInvalidRequestError) {
    return { kind: 'rejected', code: error.code, message: error.message };
  }
  if (error instanceof ProviderUnavailableError) {
    return {
      kind: 'not_sent',
      code: error.code,
      message: error.message,
      ...(error.retryAfterMs !== undefined && { retryAfterMs: error.retryAfterMs }),
      ...(error.reason === UnavailableReason.RateLimited && { rateLimited: true }),
    };
  }
  if (error instanceof ProviderOutcomeUnknownError || error instanceof ProviderMalformedResponseError) {
    return { kind: 'unknown', code: error.code, message: error.message };
  }
  return {
    kind: 'unknown',
    code: 'UNEXPECTED_ERROR',
    message: error instanceof Error ? `${error.name}: ${error.message}` : 'unexpected failure',
  };
}

/** The sender, and the search of the provider's records by a payout's markers (the reconciler, reviews). */
export class ProviderPayoutGateway extends ProviderPayoutSender {
  readonly #search: ProviderRecordSearch;

  constructor(client: PayoutProvider, options: { requestTimeoutMs?: number } = {}) {
    super(client, options);
    this.#search = new ProviderRecordSearch(client, options);
  }

  override find(payout: Payout, window: SearchWindow): Promise<FindOutcome> {
    return this.#search.find(payout, window);
  }

  override check(payout: Payout, transactionId: string): Promise<RecordCheck> {
    return this.#search.check(payout, transactionId);
  }
}
