import type * as z from 'zod/mini';
import { PROVIDER_PATHS } from '../contract.js';
import { listAllOf } from '../pagination.js';
import { ProviderResource, pageQuery, providerMethod } from '../resource.js';
import {
  type PaymentLink,
  type PaymentLinkTransaction,
  type PaymentStatus,
  paymentLinkListData,
  paymentLinkTransactionListData,
  paymentStatusSchema,
} from '../schemas/payment-link.js';
import type { ListAllOptions, Page, PageParams, ProviderResult, RequestOptions } from '../types.js';

export type PaymentLinkListData = z.infer<typeof paymentLinkListData>;
export type PaymentLinkTransactionListData = z.infer<typeof paymentLinkTransactionListData>;

const list = providerMethod({
  method: 'GET',
  path: PROVIDER_PATHS.paymentLinks,
  query: pageQuery,
  items: 'links',
  data: paymentLinkListData,
});

const listTransactions = providerMethod({
  method: 'GET',
  path: PROVIDER_PATHS.paymentLinkTransactions,
  query: pageQuery,
  items: 'transactions',
  data: paymentLinkTransactionListData,
});

const paymentStatus = providerMethod({
  method: 'GET',
  path: PROVIDER_PATHS.paymentStatus,
  query: (params: { reference: string }) => ({ reference: params.reference }),
  data: paymentStatusSchema,
});

/** Payment links and the payments made through them. */
export class PaymentLinks extends ProviderResource {
  /**
   * One page of payment links (GET /payment-link).
   *
   * @example const { items } = await client.paymentLinks.list({ page: 1, perPage: 50 });
   */
  list(params: PageParams = {}, options?: RequestOptions): Promise<Page<PaymentLink, PaymentLinkListData>> {
    return this.send(list, params, options);
  }

  /** Every payment link, page by page. @example for await (const link of client.paymentLinks.listAll()) {} */
  listAll(params: PageParams = {}, options?: ListAllOptions): AsyncGenerator<PaymentLink, void, undefined> {
    return listAllOf((p, o) => this.list(p, o), params, options);
  }

  /**
   * One page of payment-link transactions (GET /payment-link/transactions). Items keep the wire fields and
   * add `kind`, `customerEmail` and `shares` (normalised over both capitalisations).
   *
   * @example const page = await client.paymentLinks.listTransactions({ perPage: 100 });
   */
  listTransactions(
    params: PageParams = {},
    options?: RequestOptions,
  ): Promise<Page<PaymentLinkTransaction, PaymentLinkTransactionListData>> {
    return this.send(listTransactions, params, options);
  }

  /** Every payment-link transaction, page by page. */
  listAllTransactions(
    params: PageParams = {},
    options?: ListAllOptions,
  ): AsyncGenerator<PaymentLinkTransaction, void, undefined> {
    return listAllOf((p, o) => this.listTransactions(p, o), params, options);
  }

  /**
   * Status of one payment-link payment (GET /payment-link/payment/status).
   *
   * @example const { data } = await client.paymentLinks.paymentStatus({ reference: 'ref-1' });
   */
  paymentStatus(
    params: { reference: string },
    options?: RequestOptions,
  ): Promise<ProviderResult<PaymentStatus>> {
    return this.send(paymentStatus, params, options);
  }
}
