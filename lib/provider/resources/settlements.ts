import type * as z from 'zod/mini';
import { PROVIDER_PATHS } from '../contract.js';
import { listAllOf, toPage } from '../pagination.js';
import type { Requester } from '../requester.js';
import { envelope } from '../schemas/envelope.js';
import { type Settlement, settlementListData } from '../schemas/settlement.js';
import { type InstantPayoutResult, instantPayoutResultSchema } from '../schemas/wallet-operation.js';
import type { ListAllOptions, Page, PageParams, ProviderResult, RequestOptions } from '../types.js';
import { bankAccountOf, moneyBody } from './money-body.js';

const listResponse = envelope(settlementListData, 'required');
const payoutResponse = envelope(instantPayoutResultSchema, 'required');

export type SettlementListData = z.infer<typeof settlementListData>;
export type SettlementListParams = PageParams & { status?: 'SUCCESSFUL' | 'FAILED'; category?: string };

/** `amount` in naira with at most two decimals; 10-digit `accountNumber`. */
export type InstantPayoutParams = {
  amount: number;
  bankCode: string;
  accountNumber: string;
  accountName: string;
  narration: string;
  metadata?: Record<string, unknown>;
};

/** Settlements of the merchant and instant settlement payouts. */
export class Settlements {
  readonly #requester: Requester;

  constructor(requester: Requester) {
    this.#requester = requester;
  }

  /**
   * One page of settlements (GET /settlement).
   *
   * @example const { items } = await client.settlements.list({ status: 'FAILED' });
   */
  async list(
    params: SettlementListParams = {},
    options?: RequestOptions,
  ): Promise<Page<Settlement, SettlementListData>> {
    const result = await this.#requester.call(
      {
        method: 'GET',
        path: PROVIDER_PATHS.settlements,
        query: {
          page: params.page,
          perPage: params.perPage,
          status: params.status,
          category: params.category,
        },
        schema: listResponse,
      },
      options,
    );
    return toPage(result, result.data.settlements);
  }

  /**
   * Every settlement, page by page.
   *
   * @example for await (const s of client.settlements.listAll({ perPage: 100 }, { maxPages: 50 })) {}
   */
  listAll(
    params: SettlementListParams = {},
    options?: ListAllOptions,
  ): AsyncGenerator<Settlement, void, undefined> {
    return listAllOf((p: SettlementListParams, o?: RequestOptions) => this.list(p, o), params, options);
  }

  /**
   * Pays out from the main merchant wallet to a bank account now (POST /settlement/instant/payout).
   * Never retried once sent.
   *
   * @example await client.settlements.instantPayout({ amount: 294.9, bankCode: '058', accountNumber: '0123456789', accountName: 'Ada', narration: 'settle s-1' });
   */
  async instantPayout(
    params: InstantPayoutParams,
    options?: RequestOptions,
  ): Promise<ProviderResult<InstantPayoutResult>> {
    const body = moneyBody(params, 'kobo', bankAccountOf(params));
    const { message, data } = await this.#requester.call(
      { method: 'POST', path: PROVIDER_PATHS.instantPayout, body, schema: payoutResponse },
      options,
    );
    return { message, data };
  }
}
