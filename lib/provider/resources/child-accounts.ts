import { PROVIDER_PATHS } from '../contract.js';
import { ProviderResource, providerMethod } from '../resource.js';
import {
  type ChildBankTransferResult,
  type ChildDebitResult,
  childBankTransferResultSchema,
  childDebitResultSchema,
} from '../schemas/wallet-operation.js';
import type { ProviderResult, RequestOptions } from '../types.js';
import { bankAccountOf, moneyBody } from './money-body.js';

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

const debit = providerMethod({
  method: 'POST',
  path: PROVIDER_PATHS.childDebit,
  amount: 'kobo',
  body: (params: ChildDebitParams) => moneyBody(params, { childAccountId: params.childAccountId }),
  data: childDebitResultSchema,
});

const bankTransfer = providerMethod({
  method: 'POST',
  path: PROVIDER_PATHS.childBank,
  amount: 'kobo',
  body: (params: ChildBankTransferParams) =>
    moneyBody(params, { childAccountId: params.childAccountId, ...bankAccountOf(params) }),
  data: childBankTransferResultSchema,
});

/** Child (sub-merchant) accounts. POSTs: never retried once sent. */
export class ChildAccounts extends ProviderResource {
  /**
   * Debits a child account into the main merchant wallet (POST /child/debit).
   *
   * @example await client.childAccounts.debit({ childAccountId, amount: 150.5, narration: 'fees' });
   */
  debit(params: ChildDebitParams, options?: RequestOptions): Promise<ProviderResult<ChildDebitResult>> {
    return this.send(debit, params, options);
  }

  /**
   * Sends a bank transfer from a child account (POST /child/bank).
   *
   * @example await client.childAccounts.bankTransfer({ childAccountId, amount: 5000, bankCode: '058', accountNumber: '0123456789', accountName: 'Ada', narration: 'payout p-2' });
   */
  bankTransfer(
    params: ChildBankTransferParams,
    options?: RequestOptions,
  ): Promise<ProviderResult<ChildBankTransferResult>> {
    return this.send(bankTransfer, params, options);
  }
}
