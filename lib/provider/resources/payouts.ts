import type * as z from 'zod/mini';
import { PROVIDER_PATHS } from '../contract.js';
import { listAllOf } from '../pagination.js';
import { ProviderResource, pageQuery, providerMethod } from '../resource.js';
import {
  type PayoutDetail,
  payoutDetailsData,
  type RecurrentPayout,
  recurrentPayoutListData,
  type ScheduledPayout,
  scheduledPayoutListData,
} from '../schemas/payout.js';
import type { ListAllOptions, Page, PageParams, ProviderResult, RequestOptions } from '../types.js';

export type ScheduledPayoutListData = z.infer<typeof scheduledPayoutListData>;
export type RecurrentPayoutListData = z.infer<typeof recurrentPayoutListData>;

/** Filters of GET /payout/single/schedule; `startDate`/`endDate` are Unix epoch milliseconds, inclusive. */
export type ScheduledPayoutListParams = PageParams & {
  status?: string;
  startDate?: number;
  endDate?: number;
};

// None of these three responses carries an envelope `message`.
const details = providerMethod({
  method: 'GET',
  path: PROVIDER_PATHS.payoutDetails,
  query: (params: { transactionId: string }) => ({ transactionId: params.transactionId }),
  data: payoutDetailsData,
  message: 'absent',
});

const listScheduled = providerMethod({
  method: 'GET',
  path: PROVIDER_PATHS.scheduledPayouts,
  query: (params: ScheduledPayoutListParams) => ({
    ...pageQuery(params),
    status: params.status,
    startDate: params.startDate,
    endDate: params.endDate,
  }),
  items: 'records',
  data: scheduledPayoutListData,
  message: 'absent',
});

const listRecurrent = providerMethod({
  method: 'GET',
  path: PROVIDER_PATHS.recurrentPayouts,
  query: pageQuery,
  items: 'records',
  data: recurrentPayoutListData,
  message: 'absent',
});

/** Payout details and the single scheduled / recurrent payout lists. */
export class Payouts extends ProviderResource {
  /**
   * One bank payout (instant payout or child bank transfer) by its `transactionId` (GET /payout/details).
   *
   * @example const { data } = await client.payouts.details({ transactionId });
   */
  details(
    params: { transactionId: string },
    options?: RequestOptions,
  ): Promise<ProviderResult<{ transaction: PayoutDetail }>> {
    return this.send(details, params, options);
  }

  /**
   * One page of single scheduled payouts (GET /payout/single/schedule; `perpage` normalised to `perPage`).
   *
   * @example const page = await client.payouts.listScheduled({ status: 'DISPATCHED', startDate: Date.now() - 86_400_000 });
   */
  listScheduled(
    params: ScheduledPayoutListParams = {},
    options?: RequestOptions,
  ): Promise<Page<ScheduledPayout, ScheduledPayoutListData>> {
    return this.send(listScheduled, params, options);
  }

  /** Every scheduled payout, page by page. */
  listAllScheduled(
    params: ScheduledPayoutListParams = {},
    options?: ListAllOptions,
  ): AsyncGenerator<ScheduledPayout, void, undefined> {
    return listAllOf((p, o) => this.listScheduled(p, o), params, options);
  }

  /**
   * One page of single recurrent payouts (GET /payout/single/recurrent).
   *
   * @example const page = await client.payouts.listRecurrent({ perPage: 50 });
   */
  listRecurrent(
    params: PageParams = {},
    options?: RequestOptions,
  ): Promise<Page<RecurrentPayout, RecurrentPayoutListData>> {
    return this.send(listRecurrent, params, options);
  }

  /** Every recurrent payout, page by page. */
  listAllRecurrent(
    params: PageParams = {},
    options?: ListAllOptions,
  ): AsyncGenerator<RecurrentPayout, void, undefined> {
    return listAllOf((p, o) => this.listRecurrent(p, o), params, options);
  }
}
