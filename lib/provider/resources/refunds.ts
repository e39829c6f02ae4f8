import { assertAmount } from '../amounts.js';
import { PROVIDER_PATHS } from '../contract.js';
import type { Requester } from '../requester.js';
import { envelope } from '../schemas/envelope.js';
import { type Refund, refundSchema } from '../schemas/refund.js';
import type { ProviderResult, RequestOptions } from '../types.js';

const createResponse = envelope(refundSchema, 'required');

/** `amount` in naira with at most two decimals, at most the amount paid. */
export type RefundCreateParams = {
  transactionId: string;
  amount: number;
  customerNote: string;
  merchantNote: string;
};

/** Refund requests. */
export class Refunds {
  readonly #requester: Requester;

  constructor(requester: Requester) {
    this.#requester = requester;
  }

  /**
   * Requests a refund (POST /refund); the new refund is `pending`. Never retried once sent.
   *
   * @example await client.refunds.create({ transactionId, amount: 100, customerNote: 'sorry', merchantNote: 'dup charge' });
   */
  async create(params: RefundCreateParams, options?: RequestOptions): Promise<ProviderResult<Refund>> {
    assertAmount(params.amount, 'kobo');
    const { message, data } = await this.#requester.call(
      {
        method: 'POST',
        path: PROVIDER_PATHS.refunds,
        body: {
          transactionId: params.transactionId,
          amount: params.amount,
          customerNote: params.customerNote,
          merchantNote: params.merchantNote,
        },
        schema: createResponse,
      },
      options,
    );
    return { message, data };
  }
}
