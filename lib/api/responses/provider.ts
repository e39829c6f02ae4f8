import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import { upTo } from './common.js';

const { id: ID, reference: REF, word: WORD, name: NAME, text: TEXT } = FIELD_MAXIMA;

/**
 * The fields of a provider record as answered, each with its maximum: a string's length, `'naira'` for an amount
 * (a number as the provider sends it), or the fields of a nested record. A name ending in `?` may be absent or
 * null. Only these fields are answered (the provider may add others), each string clipped (`presentProviderPage`),
 * so a page's largest size is known (test/infra/api-answer-sizes.test.ts). Timestamps are answered as the provider
 * wrote them.
 */
export type ProviderFields = { readonly [field: string]: number | 'naira' | ProviderFields };

const party = (side: 'originator' | 'beneficiary') => ({
  [`${side}BankCode`]: WORD,
  [`${side}BankName`]: NAME,
  [`${side}AccountName`]: NAME,
  [`${side}AccountNumber`]: WORD,
});

export const SETTLEMENT_FIELDS: ProviderFields = {
  id: ID,
  amount: 'naira',
  status: WORD,
  date: WORD,
  charges: 'naira',
  category: WORD,
  createdAt: WORD,
  'subaccountId?': ID,
  'subaccount?': { id: ID, name: NAME },
};

export const WALLET_TRANSACTION_FIELDS: ProviderFields = {
  id: ID,
  type: WORD,
  status: WORD,
  charges: 'naira',
  reference: REF,
  category: WORD,
  amount: 'naira',
  'sessionId?': REF,
  description: TEXT,
  settledAmount: 'naira',
  createdAt: WORD,
  'narration?': NAME,
  ...party('originator'),
  ...party('beneficiary'),
  'paidAt?': WORD,
  'userId?': ID,
  'walletType?': WORD,
  'channelCode?': WORD,
  'transactionReference?': REF,
  'originatorBankVerificationNumber?': WORD,
  'beneficiaryBankVerificationNumber?': WORD,
};

export const STORE_FIELDS: ProviderFields = {
  id: ID,
  name: NAME,
  'code?': WORD,
  phoneNumber: WORD,
  'email?': NAME,
  website: NAME,
  address: TEXT,
  walletId: ID,
  createdAt: WORD,
};

function schemaOf(fields: ProviderFields): z.ZodMiniObject {
  return z.object(
    Object.fromEntries(
      Object.entries(fields).map(([key, max]) => {
        const value =
          max === 'naira'
            ? z.number().check(z.describe('naira, as the provider sends it'))
            : typeof max === 'number'
              ? upTo(max)
              : schemaOf(max);
        return key.endsWith('?') ? [key.slice(0, -1), z.optional(z.nullable(value))] : [key, value];
      }),
    ),
  );
}

/** A page of a provider listing: at most `perPage` (1 to 100) of its records, amounts in naira. */
const providerPageOf = (fields: ProviderFields) =>
  z.lazy(() =>
    z.object({
      items: z.array(schemaOf(fields)).check(z.maxLength(FIELD_MAXIMA.page)),
      pagination: z.object({
        page: z.int(),
        perPage: z.int(),
        totalRecords: z.int(),
        totalPages: z.int(),
      }),
    }),
  );

export const ProviderSettlementPageSchema = providerPageOf(SETTLEMENT_FIELDS);
export const ProviderWalletTransactionPageSchema = providerPageOf(WALLET_TRANSACTION_FIELDS);
export const ProviderStorePageSchema = providerPageOf(STORE_FIELDS);
