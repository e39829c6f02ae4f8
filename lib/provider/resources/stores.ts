import type * as z from 'zod/mini';
import { PROVIDER_PATHS } from '../contract.js';
import { listAllOf } from '../pagination.js';
import { ProviderResource, pageQuery, providerMethod } from '../resource.js';
import {
  type Store,
  type StoreDetail,
  storeDetailSchema,
  storeListData,
  type TerminalUsage,
  terminalUsageListData,
} from '../schemas/store.js';
import type { ListAllOptions, Page, PageParams, ProviderResult, RequestOptions } from '../types.js';

export type StoreListData = z.infer<typeof storeListData>;
export type TerminalUsageListData = z.infer<typeof terminalUsageListData>;

const list = providerMethod({
  method: 'GET',
  path: PROVIDER_PATHS.stores,
  query: pageQuery,
  items: 'stores',
  data: storeListData,
});

const info = providerMethod({
  method: 'GET',
  path: PROVIDER_PATHS.storeInfo,
  query: (params: { storeId: string }) => ({ storeId: params.storeId }),
  data: storeDetailSchema,
});

const terminalUsage = providerMethod({
  method: 'GET',
  path: PROVIDER_PATHS.terminalUsage,
  query: pageQuery,
  items: 'usages',
  data: terminalUsageListData,
});

/** Stores (branches), their wallets and agents, and terminal usage. */
export class Stores extends ProviderResource {
  /**
   * One page of stores, with `totalStoreBalance` in `data` (GET /branch/store).
   *
   * @example const { items, data } = await client.stores.list({ perPage: 100 });
   */
  list(params: PageParams = {}, options?: RequestOptions): Promise<Page<Store, StoreListData>> {
    return this.send(list, params, options);
  }

  /** Every store, page by page. */
  listAll(params: PageParams = {}, options?: ListAllOptions): AsyncGenerator<Store, void, undefined> {
    return listAllOf((p, o) => this.list(p, o), params, options);
  }

  /**
   * One store with its agents and wallet (GET /branch/store/info). Store ids are numeric strings.
   *
   * @example const { data } = await client.stores.info({ storeId: '1001' });
   */
  info(params: { storeId: string }, options?: RequestOptions): Promise<ProviderResult<StoreDetail>> {
    return this.send(info, params, options);
  }

  /**
   * One page of terminal usage records (GET /branch/terminal/usage).
   *
   * @example const { items } = await client.stores.terminalUsage({ page: 2 });
   */
  terminalUsage(
    params: PageParams = {},
    options?: RequestOptions,
  ): Promise<Page<TerminalUsage, TerminalUsageListData>> {
    return this.send(terminalUsage, params, options);
  }

  /** Every terminal usage record, page by page. */
  listAllTerminalUsage(
    params: PageParams = {},
    options?: ListAllOptions,
  ): AsyncGenerator<TerminalUsage, void, undefined> {
    return listAllOf((p, o) => this.terminalUsage(p, o), params, options);
  }
}
