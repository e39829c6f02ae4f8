import type * as z from 'zod/mini';
import { PROVIDER_PATHS } from '../contract.js';
import { listAllOf } from '../pagination.js';
import { ProviderResource, pageQuery, providerMethod } from '../resource.js';
import { type Settlement, settlementListData } from '../schemas/settlement.js';
import { type InstantPayoutResult, instantPayoutResultSchema } from '../schemas/wallet-operation.js';
import type { ListAllOptions, Page, PageParams, ProviderResult, RequestOptions } from '../types.js';
import { bankAccountOf, moneyBody } from './money-body.js';

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

const list = providerMethod({
  method: 'GET',
  path: PROVIDER_PATHS.settlements,
  query: (params: SettlementListParams) => ({
    ...pageQuery(params),
    status: params.status,
    category: params.category,
  }),
  items: 'settlements',
  data: settlementListData,
});

const instantPayout = providerMethod({
  method: 'POST',
  path: PROVIDER_PATHS.instantPayout,
  amount: 'kobo',
  body: (params: InstantPayoutParams) => moneyBody(params, bankAccountOf(params)),
  data: instantPayoutResultSchema,
});

/** Settlements of the merchant and instant settlement payouts. */
export class Settlements extends ProviderResource {
  /**
   * One page of settlements (GET /settlement).
   *
   * @example const { items } = await client.settlements.list({ status: 'FAILED' });
   */
  list(
    params: SettlementListParams = {},
    options?: RequestOptions,
  ): Promise<Page<Settlement, SettlementListData>> {
    return this.send(list, params, options);
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
    return listAllOf((p, o) => this.list(p, o), params, options);
  }

  /**
   * Pays out from the main merchant wallet to a bank account now (POST /settlement/instant/payout).
   * Never retried once sent.
   *
   * @example await client.settlements.instantPayout({ amount: 294.9, bankCode: '058', accountNumber: '0123456789', accountName: 'Ada', narration: 'settle s-1' });
   */
  instantPayout(
    params: InstantPayoutParams,
    options?: RequestOptions,
  ): Promise<ProviderResult<InstantPayoutResult>> {
    return this.send(instantPayout, params, options);
  }
}
