import { PROVIDER_PATHS } from '../contract.js';
import { ProviderResource, providerMethod } from '../resource.js';
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

/** Common body of the three wallet operations. `amount` is whole naira; the client adds the PIN. */
type WalletOperationParams = { amount: number; narration: string; metadata?: Record<string, unknown> };

export type WalletTransferParams = WalletOperationParams & { fromWalletId: string; toWalletId: string };
export type WalletCreditParams = WalletOperationParams & { walletId: string };
export type WalletDebitParams = WalletOperationParams & { walletId: string };

const transfer = providerMethod({
  method: 'POST',
  path: PROVIDER_PATHS.walletTransfer,
  amount: 'whole-naira',
  body: (params: WalletTransferParams) =>
    moneyBody(params, { fromWalletId: params.fromWalletId, toWalletId: params.toWalletId }),
  withPin: true,
  data: walletTransferResultSchema,
});

const credit = providerMethod({
  method: 'POST',
  path: PROVIDER_PATHS.walletCredit,
  amount: 'whole-naira',
  body: (params: WalletCreditParams) => moneyBody(params, { walletId: params.walletId }),
  withPin: true,
  data: walletCreditResultSchema,
});

const debit = providerMethod({
  method: 'POST',
  path: PROVIDER_PATHS.walletDebit,
  amount: 'whole-naira',
  body: (params: WalletDebitParams) => moneyBody(params, { walletId: params.walletId }),
  withPin: true,
  data: walletDebitResultSchema,
});

/**
 * Wallet-to-wallet money movements. POSTs: never retried once sent; on `ProviderOutcomeUnknownError`
 * reconcile by narration before doing anything else.
 */
export class Wallets extends ProviderResource {
  /**
   * Moves whole naira from one wallet to another (POST /wallet/transfer).
   *
   * @example await client.wallets.transfer({ fromWalletId, toWalletId, amount: toWholeNaira(kobo), narration: 'payout p-1' });
   */
  transfer(
    params: WalletTransferParams,
    options?: RequestOptions,
  ): Promise<ProviderResult<WalletTransferResult>> {
    return this.send(transfer, params, options);
  }

  /**
   * Credits a wallet from the main merchant wallet (POST /wallet/credit).
   *
   * @example await client.wallets.credit({ walletId, amount: 200, narration: 'top-up' });
   */
  credit(params: WalletCreditParams, options?: RequestOptions): Promise<ProviderResult<WalletCreditResult>> {
    return this.send(credit, params, options);
  }

  /**
   * Debits a wallet into the main merchant wallet (POST /wallet/enable, the provider's name for it).
   *
   * @example await client.wallets.debit({ walletId, amount: 200, narration: 'sweep' });
   */
  debit(params: WalletDebitParams, options?: RequestOptions): Promise<ProviderResult<WalletDebitResult>> {
    return this.send(debit, params, options);
  }
}
