import { PROVIDER_PATHS } from '../contract.js';
import type { Requester } from '../requester.js';
import { envelope } from '../schemas/envelope.js';
import {
  type WalletCreditResult,
  type WalletDebitResult,
  type WalletTransferResult,
  walletCreditResultSchema,
  walletDebitResultSchema,
  walletTransferResultSchema,
} from '../schemas/wallet-operation.js';
import type { ProviderResult, RequestOptions } from '../types.js';
import { moneyBody } from './money-body.js';

const transferResponse = envelope(walletTransferResultSchema, 'required');
const creditResponse = envelope(walletCreditResultSchema, 'required');
const debitResponse = envelope(walletDebitResultSchema, 'required');

/** Common body of the three wallet operations. `amount` is whole naira; the client adds the PIN. */
type WalletOperationParams = { amount: number; narration: string; metadata?: Record<string, unknown> };

export type WalletTransferParams = WalletOperationParams & { fromWalletId: string; toWalletId: string };
export type WalletCreditParams = WalletOperationParams & { walletId: string };
export type WalletDebitParams = WalletOperationParams & { walletId: string };

/**
 * Wallet-to-wallet money movements. POSTs: never retried once sent; on `ProviderOutcomeUnknownError`
 * reconcile by narration before doing anything else.
 */
export class Wallets {
  readonly #requester: Requester;

  constructor(requester: Requester) {
    this.#requester = requester;
  }

  /**
   * Moves whole naira from one wallet to another (POST /wallet/transfer).
   *
   * @example await client.wallets.transfer({ fromWalletId, toWalletId, amount: toWholeNaira(kobo), narration: 'payout p-1' });
   */
  async transfer(
    params: WalletTransferParams,
    options?: RequestOptions,
  ): Promise<ProviderResult<WalletTransferResult>> {
    const body = moneyBody(params, 'whole-naira', {
      fromWalletId: params.fromWalletId,
      toWalletId: params.toWalletId,
    });
    const { message, data } = await this.#requester.call(
      { method: 'POST', path: PROVIDER_PATHS.walletTransfer, body, withPin: true, schema: transferResponse },
      options,
    );
    return { message, data };
  }

  /**
   * Credits a wallet from the main merchant wallet (POST /wallet/credit).
   *
   * @example await client.wallets.credit({ walletId, amount: 200, narration: 'top-up' });
   */
  async credit(
    params: WalletCreditParams,
    options?: RequestOptions,
  ): Promise<ProviderResult<WalletCreditResult>> {
    const body = moneyBody(params, 'whole-naira', { walletId: params.walletId });
    const { message, data } = await this.#requester.call(
      { method: 'POST', path: PROVIDER_PATHS.walletCredit, body, withPin: true, schema: creditResponse },
      options,
    );
    return { message, data };
  }

  /**
   * Debits a wallet into the main merchant wallet (POST /wallet/enable, the provider's name for it).
   *
   * @example await client.wallets.debit({ walletId, amount: 200, narration: 'sweep' });
   */
  async debit(
    params: WalletDebitParams,
    options?: RequestOptions,
  ): Promise<ProviderResult<WalletDebitResult>> {
    const body = moneyBody(params, 'whole-naira', { walletId: params.walletId });
    const { message, data } = await this.#requester.call(
      { method: 'POST', path: PROVIDER_PATHS.walletDebit, body, withPin: true, schema: debitResponse },
      options,
    );
    return { message, data };
  }
}
