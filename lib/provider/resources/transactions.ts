import type * as z from 'zod/mini';
import { PROVIDER_PATHS } from '../contract.js';
import { listAllOf } from '../pagination.js';
import { ProviderResource, pageQuery, providerMethod } from '../resource.js';
import {
  type TransactionDetail,
  transactionInfoData,
  type WalletTransaction,
  walletTransactionListData,
} from '../schemas/transaction.js';
import type { ListAllOptions, Page, PageParams, ProviderResult, RequestOptions } from '../types.js';

export type WalletTransactionListData = z.infer<typeof walletTransactionListData>;

/** Filters of GET /transaction/wallet; `startDate`/`endDate` are ISO 8601 timestamps, inclusive, on createdAt. */
export type WalletTransactionListParams = PageParams & {
  walletId?: string;
  type?: 'DEBIT' | 'CREDIT';
  startDate?: string;
  endDate?: string;
};

const listWallet = providerMethod({
  method: 'GET',
  path: PROVIDER_PATHS.walletTransactions,
  query: (params: WalletTransactionListParams) => ({
    ...pageQuery(params),
    walletId: params.walletId,
    type: params.type,
    startDate: params.startDate,
    endDate: params.endDate,
  }),
  items: 'transactions',
  data: walletTransactionListData,
});

const info = providerMethod({
  method: 'GET',
  path: PROVIDER_PATHS.transactionInfo,
  query: (params: { transactionId: string }) => ({ transactionId: params.transactionId }),
  data: transactionInfoData,
  message: 'absent',
});

/** Wallet transactions: the ledger used to reconcile operations by narration. */
export class Transactions extends ProviderResource {
  /**
   * One page of wallet transactions, with the four aggregates in `data` (GET /transaction/wallet).
   *
   * @example const page = await client.transactions.listWallet({ walletId, type: 'DEBIT', perPage: 100 });
   */
  listWallet(
    params: WalletTransactionListParams = {},
    options?: RequestOptions,
  ): Promise<Page<WalletTransaction, WalletTransactionListData>> {
    return this.send(listWallet, params, options);
  }

  /** Every wallet transaction matching the filters, page by page. */
  listAllWallet(
    params: WalletTransactionListParams = {},
    options?: ListAllOptions,
  ): AsyncGenerator<WalletTransaction, void, undefined> {
    return listAllOf((p, o) => this.listWallet(p, o), params, options);
  }

  /**
   * One transaction (GET /transaction/info; no envelope message). Result `data` is `{ transaction }`.
   *
   * @example const { data } = await client.transactions.info({ transactionId });
   */
  info(
    params: { transactionId: string },
    options?: RequestOptions,
  ): Promise<ProviderResult<{ transaction: TransactionDetail }>> {
    return this.send(info, params, options);
  }
}
