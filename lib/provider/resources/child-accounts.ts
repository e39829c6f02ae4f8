import { PROVIDER_PATHS } from '../contract.js';
import type { Requester } from '../requester.js';
import { envelope } from '../schemas/envelope.js';
import {
  type ChildBankTransferResult,
  type ChildDebitResult,
  childBankTransferResultSchema,
  childDebitResultSchema,
} from '../schemas/wallet-operation.js';
import type { ProviderResult, RequestOptions } from '../types.js';
import { bankAccountOf, moneyBody } from './money-body.js';

const debitResponse = envelope(childDebitResultSchema, 'required');
const bankResponse = envelope(childBankTransferResultSchema, 'required');

/** `amount` in naira with at most two decimals. */
export type ChildDebitParams = {
  childAccountId: string;
  amount: number;
  narration: string;
  metadata?: Record<string, unknown>;
};

/** `amount` in naira with at most two decimals; 10-digit `accountNumber`. */
export type ChildBankTransferParams = ChildDebitParams & {
  bankCode: string;
  accountNumber: string;
  accountName: string;
};

/** Child (sub-merchant) accounts. POSTs: never retried once sent. */
export class ChildAccounts {
  readonly #requester: Requester;

  constructor(requester: Requester) {
    this.#requester = requester;
  }

  /**
   * Debits a child account into the main merchant wallet (POST /child/debit).
   *
   * @example await client.childAccounts.debit({ childAccountId, amount: 150.5, narration: 'fees' });
   */
  async debit(params: ChildDebitParams, options?: RequestOptions): Promise<ProviderResult<ChildDebitResult>> {
    const body = moneyBody(params, 'kobo', { childAccountId: params.childAccountId });
    const { message, data } = await this.#requester.call(
      { method: 'POST', path: PROVIDER_PATHS.childDebit, body, schema: debitResponse },
      options,
    );
    return { message, data };
  }

  /**
   * Sends a bank transfer from a child account (POST /child/bank).
   *
   * @example await client.childAccounts.bankTransfer({ childAccountId, amount: 5000, bankCode: '058', accountNumber: '0123456789', accountName: 'Ada', narration: 'payout p-2' });
   */
  async bankTransfer(
    params: ChildBankTransferParams,
    options?: RequestOptions,
  ): Promise<ProviderResult<ChildBankTransferResult>> {
    const body = moneyBody(params, 'kobo', {
      childAccountId: params.childAccountId,
      ...bankAccountOf(params),
    });
    const { message, data } = await this.#requester.call(
      { method: 'POST', path: PROVIDER_PATHS.childBank, body, schema: bankResponse },
      options,
    );
    return { message, data };
  }
}
