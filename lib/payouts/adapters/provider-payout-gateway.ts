import { MoneyError, toKobo, toNaira, toWholeNaira } from '../../money.js';
import {
  type ProviderClient,
  ProviderError,
  ProviderInvalidRequestError,
  ProviderMalformedResponseError,
  ProviderOutcomeUnknownError,
  ProviderRejectedError,
  ProviderUnavailableError,
  type WalletTransaction,
} from '../../provider/index.js';
import {
  type FindOutcome,
  type PayoutGateway,
  payoutMarker,
  type SearchWindow,
  type SendOutcome,
} from '../gateway.js';
import type { Payout, ProviderReceipt } from '../model.js';

/** Bounds a reconciliation look-up: past this many records the window is too busy to prove absence. */
const MAX_LOOKUP_PAGES = 50;
const LOOKUP_PAGE_SIZE = 100;

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
 * Maps each payout type to its provider endpoint, and every provider answer or failure to a SendOutcome.
 * Every request carries the payout's marker in its narration and its id in metadata, so a payout whose
 * answer was lost can be found again: the provider has no idempotency key.
 */
export class ProviderPayoutGateway implements PayoutGateway {
  constructor(
    private readonly client: ProviderClient,
    private readonly options: { requestTimeoutMs?: number } = {},
  ) {}

  prepare(): void {
    this.client.prepare();
  }

  async send(payout: Payout): Promise<SendOutcome> {
    let call: () => Promise<OperationResult>;
    try {
      call = this.#callFor(payout);
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

  async find(payout: Payout, window: SearchWindow): Promise<FindOutcome> {
    const marker = payoutMarker(payout.id);
    // Keyed by record id: pages shift while new records arrive, so one record can show on two pages.
    const matches = new Map<string, WalletTransaction>();
    // Pages are walked here rather than with `listAllWallet`: absence proves failure only if the walk reached
    // the last page, and the auto-pager does not say whether its page bound stopped it.
    let pages = 0;
    let complete = false;
    try {
      let page = 1;
      for (;;) {
        const result = await this.client.transactions.listWallet(
          { type: 'DEBIT', startDate: window.from, endDate: window.to, page, perPage: LOOKUP_PAGE_SIZE },
          this.#options(),
        );
        pages++;
        for (const record of result.items) {
          if (record.narration?.includes(marker)) matches.set(record.id, record);
        }
        if (page >= result.pagination.totalPages || result.items.length === 0) {
          complete = true;
          break;
        }
        if (pages >= MAX_LOOKUP_PAGES) break;
        page++;
      }
    } catch (error) {
      const code = error instanceof ProviderError ? error.code : 'LOOKUP_ERROR';
      return {
        kind: 'lookup_failed',
        code,
        message: error instanceof Error ? error.message : 'look-up failed',
      };
    }
    if (matches.size > 1) {
      return { kind: 'ambiguous', detail: `${matches.size} debit records carry ${marker}` };
    }
    const [match] = matches.values();
    if (match) {
      if (match.status !== 'SUCCESS')
        return { kind: 'ambiguous', detail: `record ${match.id} has status ${match.status}` };
      return {
        kind: 'found',
        receipt: receiptOf({
          transactionId: match.id,
          status: match.status,
          charges: match.charges,
          paidAt: match.createdAt,
          reference: match.reference,
          ...(match.sessionId && { sessionId: match.sessionId }),
        }),
      };
    }
    if (!complete) {
      return {
        kind: 'lookup_failed',
        code: 'LOOKUP_WINDOW_TOO_LARGE',
        message: `more than ${MAX_LOOKUP_PAGES * LOOKUP_PAGE_SIZE} debits in the window; absence not proven`,
      };
    }
    return { kind: 'absent' };
  }

  #options() {
    return this.options.requestTimeoutMs ? { timeoutMs: this.options.requestTimeoutMs } : undefined;
  }

  /** Converts amounts before anything is sent, so a conversion error can never follow a sent request. */
  #callFor(payout: Payout): () => Promise<OperationResult> {
    const narration = `${payout.narration} ${payoutMarker(payout.id)}`;
    const metadata = { ...payout.metadata, payoutId: payout.id, idempotencyKey: payout.idempotencyKey };
    const options = this.#options();
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
