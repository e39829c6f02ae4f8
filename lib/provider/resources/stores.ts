import type * as z from 'zod/mini';
import { PROVIDER_PATHS } from '../contract.js';
import { listAllOf, toPage } from '../pagination.js';
import type { Requester } from '../requester.js';
import { envelope } from '../schemas/envelope.js';
import {
  type Store,
  type StoreDetail,
  storeDetailSchema,
  storeListData,
  type TerminalUsage,
  terminalUsageListData,
} from '../schemas/store.js';
import type { ListAllOptions, Page, PageParams, ProviderResult, RequestOptions } from '../types.js';

const listResponse = envelope(storeListData, 'required');
const infoResponse = envelope(storeDetailSchema, 'required');
const usageResponse = envelope(terminalUsageListData, 'required');

export type StoreListData = z.infer<typeof storeListData>;
export type TerminalUsageListData = z.infer<typeof terminalUsageListData>;

/** Stores (branches), their wallets and agents, and terminal usage. */
export class Stores {
  readonly #requester: Requester;

  constructor(requester: Requester) {
    this.#requester = requester;
  }

  /**
   * One page of stores, with `totalStoreBalance` in `data` (GET /branch/store).
   *
   * @example const { items, data } = await client.stores.list({ perPage: 100 });
   */
  async list(params: PageParams = {}, options?: RequestOptions): Promise<Page<Store, StoreListData>> {
    const result = await this.#requester.call(
      {
        method: 'GET',
        path: PROVIDER_PATHS.stores,
        query: { page: params.page, perPage: params.perPage },
        schema: listResponse,
      },
      options,
    );
    return toPage(result, result.data.stores);
  }

  /** Every store, page by page. */
  listAll(params: PageParams = {}, options?: ListAllOptions): AsyncGenerator<Store, void, undefined> {
    return listAllOf((p: PageParams, o?: RequestOptions) => this.list(p, o), params, options);
  }

  /**
   * One store with its agents and wallet (GET /branch/store/info). Store ids are numeric strings.
   *
   * @example const { data } = await client.stores.info({ storeId: '1001' });
   */
  async info(params: { storeId: string }, options?: RequestOptions): Promise<ProviderResult<StoreDetail>> {
    const { message, data } = await this.#requester.call(
      {
        method: 'GET',
        path: PROVIDER_PATHS.storeInfo,
        query: { storeId: params.storeId },
        schema: infoResponse,
      },
      options,
    );
    return { message, data };
  }

  /**
   * One page of terminal usage records (GET /branch/terminal/usage).
   *
   * @example const { items } = await client.stores.terminalUsage({ page: 2 });
   */
  async terminalUsage(
    params: PageParams = {},
    options?: RequestOptions,
  ): Promise<Page<TerminalUsage, TerminalUsageListData>> {
    const result = await this.#requester.call(
      {
        method: 'GET',
        path: PROVIDER_PATHS.terminalUsage,
        query: { page: params.page, perPage: params.perPage },
        schema: usageResponse,
      },
      options,
    );
    return toPage(result, result.data.usages);
  }

  /** Every terminal usage record, page by page. */
  listAllTerminalUsage(
    params: PageParams = {},
    options?: ListAllOptions,
  ): AsyncGenerator<TerminalUsage, void, undefined> {
    return listAllOf((p: PageParams, o?: RequestOptions) => this.terminalUsage(p, o), params, options);
  }
}
