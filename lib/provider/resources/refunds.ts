import { PROVIDER_PATHS } from '../contract.js';
import { ProviderResource, providerMethod } from '../resource.js';
import { type Refund, refundSchema } from '../schemas/refund.js';
import type { ProviderResult, RequestOptions } from '../types.js';

/** `amount` in naira with at most two decimals, at most the amount paid. */
export type RefundCreateParams = {
  transactionId: string;
  amount: number;
  customerNote: string;
  merchantNote: string;
};

const create = providerMethod({
  method: 'POST',
  path: PROVIDER_PATHS.refunds,
  amount: 'kobo',
  body: (params: RefundCreateParams) => ({
    transactionId: params.transactionId,
    amount: params.amount,
    customerNote: params.customerNote,
    merchantNote: params.merchantNote,
  }),
  data: refundSchema,
});

/** Refund requests. */
export class Refunds extends ProviderResource {
  /**
   * Requests a refund (POST /refund); the new refund is `pending`. Never retried once sent.
   *
   * @example await client.refunds.create({ transactionId, amount: 100, customerNote: 'sorry', merchantNote: 'dup charge' });
   */
  create(params: RefundCreateParams, options?: RequestOptions): Promise<ProviderResult<Refund>> {
    return this.send(create, params, options);
  }
}
