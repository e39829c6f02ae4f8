import type * as z from 'zod/mini';
import { PROVIDER_PATHS } from '../contract.js';
import { listAllOf, toPage } from '../pagination.js';
import type { Requester } from '../requester.js';
import { envelope } from '../schemas/envelope.js';
import {
  type PayoutDetail,
  payoutDetailsData,
  type RecurrentPayout,
  recurrentPayoutListData,
  type ScheduledPayout,
  scheduledPayoutListData,
} from '../schemas/payout.js';
import type { ListAllOptions, Page, PageParams, ProviderResult, RequestOptions } from '../types.js';

// None of these three responses carries an envelope `message`.
const detailsResponse = envelope(payoutDetailsData, 'absent');
const scheduledResponse = envelope(scheduledPayoutListData, 'absent');
const recurrentResponse = envelope(recurrentPayoutListData, 'absent');

export type ScheduledPayoutListData = z.infer<typeof scheduledPayoutListData>;
export type RecurrentPayoutListData = z.infer<typeof recurrentPayoutListData>;

/** Filters of GET /payout/single/schedule; `startDate`/`endDate` are Unix epoch milliseconds, inclusive. */
export type ScheduledPayoutListParams = PageParams & {
  status?: string;
  startDate?: number;
  endDate?: number;
};

/** Payout details and the single scheduled / recurrent payout lists. */
export class Payouts {
  readonly #requester: Requester;

  constructor(requester: Requester) {
    this.#requester = requester;
  }

  /**
   * One bank payout (instant payout or child bank transfer) by its `transactionId` (GET /payout/details).
   *
   * @example const { data } = await client.payouts.details({ transactionId });
   */
  async details(
    params: { transactionId: string },
    options?: RequestOptions,
  ): Promise<ProviderResult<{ transaction: PayoutDetail }>> {
    const { message, data } = await this.#requester.call(
      {
        method: 'GET',
        path: PROVIDER_PATHS.payoutDetails,
        query: { transactionId: params.transactionId },
        schema: detailsResponse,
      },
      options,
    );
    return { message, data };
  }

  /**
   * One page of single scheduled payouts (GET /payout/single/schedule; `perpage` normalised to `perPage`).
   *
   * @example const page = await client.payouts.listScheduled({ status: 'DISPATCHED', startDate: Date.now() - 86_400_000 });
   */
  async listScheduled(
    params: ScheduledPayoutListParams = {},
    options?: RequestOptions,
  ): Promise<Page<ScheduledPayout, ScheduledPayoutListData>> {
    const result = await this.#requester.call(
      {
        method: 'GET',
        path: PROVIDER_PATHS.scheduledPayouts,
        query: {
          page: params.page,
          perPage: params.perPage,
          status: params.status,
          startDate: params.startDate,
          endDate: params.endDate,
        },
        schema: scheduledResponse,
      },
      options,
    );
    return toPage(result, result.data.records);
  }

  /** Every scheduled payout, page by page. */
  listAllScheduled(
    params: ScheduledPayoutListParams = {},
    options?: ListAllOptions,
  ): AsyncGenerator<ScheduledPayout, void, undefined> {
    return listAllOf(
      (p: ScheduledPayoutListParams, o?: RequestOptions) => this.listScheduled(p, o),
      params,
      options,
    );
  }

  /**
   * One page of single recurrent payouts (GET /payout/single/recurrent).
   *
   * @example const page = await client.payouts.listRecurrent({ perPage: 50 });
   */
  async listRecurrent(
    params: PageParams = {},
    options?: RequestOptions,
  ): Promise<Page<RecurrentPayout, RecurrentPayoutListData>> {
    const result = await this.#requester.call(
      {
        method: 'GET',
        path: PROVIDER_PATHS.recurrentPayouts,
        query: { page: params.page, perPage: params.perPage },
        schema: recurrentResponse,
      },
      options,
    );
    return toPage(result, result.data.records);
  }

  /** Every recurrent payout, page by page. */
  listAllRecurrent(
    params: PageParams = {},
    options?: ListAllOptions,
  ): AsyncGenerator<RecurrentPayout, void, undefined> {
    return listAllOf((p: PageParams, o?: RequestOptions) => this.listRecurrent(p, o), params, options);
  }
}
