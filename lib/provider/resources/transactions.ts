import type * as z from 'zod/mini';
import { PROVIDER_PATHS } from '../contract.js';
import { listAllOf, toPage } from '../pagination.js';
import type { Requester } from '../requester.js';
import { envelope } from '../schemas/envelope.js';
import {
  type TransactionDetail,
  transactionInfoData,
  type WalletTransaction,
  walletTransactionListData,
} from '../schemas/transaction.js';
import type { ListAllOptions, Page, PageParams, ProviderResult, RequestOptions } from '../types.js';

const listResponse = envelope(walletTransactionListData, 'required');
const infoResponse = envelope(transactionInfoData, 'absent');

export type WalletTransactionListData = z.infer<typeof walletTransactionListData>;

/** Filters of GET /transaction/wallet; `startDate`/`endDate` are ISO 8601 timestamps, inclusive, on createdAt. */
export type WalletTransactionListParams = PageParams & {
  walletId?: string;
  type?: 'DEBIT' | 'CREDIT';
  startDate?: string;
  endDate?: string;
};

/** Wallet transactions: the ledger used to reconcile operations by narration. */
export class Transactions {
  readonly #requester: Requester;

  constructor(requester: Requester) {
    this.#requester = requester;
  }

  /**
   * One page of wallet transactions, with the four aggregates in `data` (GET /transaction/wallet).
   *
   * @example const page = await client.transactions.listWallet({ walletId, type: 'DEBIT', perPage: 100 });
   */
  async listWallet(
    params: WalletTransactionListParams = {},
    options?: RequestOptions,
  ): Promise<Page<WalletTransaction, WalletTransactionListData>> {
    const result = await this.#requester.call(
      {
        method: 'GET',
        path: PROVIDER_PATHS.walletTransactions,
        query: {
          page: params.page,
          perPage: params.perPage,
          walletId: params.walletId,
          type: params.type,
          startDate: params.startDate,
          endDate: params.endDate,
        },
        schema: listResponse,
      },
      options,
    );
    return toPage(result, result.data.transactions);
  }

  /** Every wallet transaction matching the filters, page by page. */
  listAllWallet(
    params: WalletTransactionListParams = {},
    options?: ListAllOptions,
  ): AsyncGenerator<WalletTransaction, void, undefined> {
    return listAllOf(
      (p: WalletTransactionListParams, o?: RequestOptions) => this.listWallet(p, o),
      params,
      options,
    );
  }

  /**
   * One transaction (GET /transaction/info; no envelope message). Result `data` is `{ transaction }`.
   *
   * @example const { data } = await client.transactions.info({ transactionId });
   */
  async info(
    params: { transactionId: string },
    options?: RequestOptions,
  ): Promise<ProviderResult<{ transaction: TransactionDetail }>> {
    const { message, data } = await this.#requester.call(
      {
        method: 'GET',
        path: PROVIDER_PATHS.transactionInfo,
        query: { transactionId: params.transactionId },
        schema: infoResponse,
      },
      options,
    );
    return { message, data };
  }
}
