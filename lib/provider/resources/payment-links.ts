import type * as z from 'zod/mini';
import { PROVIDER_PATHS } from '../contract.js';
import { listAllOf, toPage } from '../pagination.js';
import type { Requester } from '../requester.js';
import { envelope } from '../schemas/envelope.js';
import {
  type PaymentLink,
  type PaymentLinkTransaction,
  type PaymentStatus,
  paymentLinkListData,
  paymentLinkTransactionListData,
  paymentStatusSchema,
} from '../schemas/payment-link.js';
import type { ListAllOptions, Page, PageParams, ProviderResult, RequestOptions } from '../types.js';

const listResponse = envelope(paymentLinkListData, 'required');
const transactionsResponse = envelope(paymentLinkTransactionListData, 'required');
const statusResponse = envelope(paymentStatusSchema, 'required');

export type PaymentLinkListData = z.infer<typeof paymentLinkListData>;
export type PaymentLinkTransactionListData = z.infer<typeof paymentLinkTransactionListData>;

/** Payment links and the payments made through them. */
export class PaymentLinks {
  readonly #requester: Requester;

  constructor(requester: Requester) {
    this.#requester = requester;
  }

  /**
   * One page of payment links (GET /payment-link).
   *
   * @example const { items } = await client.paymentLinks.list({ page: 1, perPage: 50 });
   */
  async list(
    params: PageParams = {},
    options?: RequestOptions,
  ): Promise<Page<PaymentLink, PaymentLinkListData>> {
    const result = await this.#requester.call(
      {
        method: 'GET',
        path: PROVIDER_PATHS.paymentLinks,
        query: { page: params.page, perPage: params.perPage },
        schema: listResponse,
      },
      options,
    );
    return toPage(result, result.data.links);
  }

  /** Every payment link, page by page. @example for await (const link of client.paymentLinks.listAll()) {} */
  listAll(params: PageParams = {}, options?: ListAllOptions): AsyncGenerator<PaymentLink, void, undefined> {
    return listAllOf((p: PageParams, o?: RequestOptions) => this.list(p, o), params, options);
  }

  /**
   * One page of payment-link transactions (GET /payment-link/transactions). Items keep the wire fields and
   * add `kind`, `customerEmail` and `shares` (normalised over both capitalisations).
   *
   * @example const page = await client.paymentLinks.listTransactions({ perPage: 100 });
   */
  async listTransactions(
    params: PageParams = {},
    options?: RequestOptions,
  ): Promise<Page<PaymentLinkTransaction, PaymentLinkTransactionListData>> {
    const result = await this.#requester.call(
      {
        method: 'GET',
        path: PROVIDER_PATHS.paymentLinkTransactions,
        query: { page: params.page, perPage: params.perPage },
        schema: transactionsResponse,
      },
      options,
    );
    return toPage(result, result.data.transactions);
  }

  /** Every payment-link transaction, page by page. */
  listAllTransactions(
    params: PageParams = {},
    options?: ListAllOptions,
  ): AsyncGenerator<PaymentLinkTransaction, void, undefined> {
    return listAllOf((p: PageParams, o?: RequestOptions) => this.listTransactions(p, o), params, options);
  }

  /**
   * Status of one payment-link payment (GET /payment-link/payment/status).
   *
   * @example const { data } = await client.paymentLinks.paymentStatus({ reference: 'ref-1' });
   */
  async paymentStatus(
    params: { reference: string },
    options?: RequestOptions,
  ): Promise<ProviderResult<PaymentStatus>> {
    const { message, data } = await this.#requester.call(
      {
        method: 'GET',
        path: PROVIDER_PATHS.paymentStatus,
        query: { reference: params.reference },
        schema: statusResponse,
      },
      options,
    );
    return { message, data };
  }
}
