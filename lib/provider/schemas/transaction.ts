import * as z from 'zod/mini';

// Each schema is built on first use (z.lazy): every function loads all the provider's resources but parses few of
// them, and building them at load was a large part of a cold start's zod work (docs/cold-start.md).
import { amount, bankParties, timestamp } from './common.js';
import { listData, sizePagination } from './pagination.js';

/** Item of `data.transactions` in GET /transaction/wallet. */
export const walletTransactionSchema = z.lazy(() =>
  z.looseObject({
    id: z.string(),
    type: z.string(),
    status: z.string(),
    charges: amount,
    reference: z.string(),
    category: z.string(),
    amount,
    sessionId: z.nullable(z.string()),
    description: z.string(),
    settledAmount: amount,
    createdAt: timestamp,
    narration: z.optional(z.string()),
    ...bankParties(),
    // On BANK_FUNDING records.
    paidAt: z.optional(timestamp),
    userId: z.optional(z.string()),
    walletType: z.optional(z.string()),
    channelCode: z.optional(z.string()),
    transactionReference: z.optional(z.string()),
    originatorBankVerificationNumber: z.optional(z.string()),
    beneficiaryBankVerificationNumber: z.optional(z.string()),
  }),
);
export type WalletTransaction = z.infer<typeof walletTransactionSchema>;

export const walletTransactionListData = listData(
  {
    ...sizePagination,
    totalDebitAmount: amount,
    totalCreditAmount: amount,
    totalTransactionValue: amount,
    totalTransactionVolume: amount,
  },
  'transactions',
  walletTransactionSchema,
);

/** `data.transaction` of GET /transaction/info. */
export const transactionDetailSchema = z.lazy(() =>
  z.looseObject({
    id: z.string(),
    type: z.string(),
    status: z.string(),
    charges: amount,
    category: z.string(),
    amount,
    amountProcessed: amount,
    sessionId: z.nullable(z.string()),
    description: z.string(),
    createdAt: timestamp,
    narration: z.string(),
    ...bankParties(),
    /** On payment-link transactions only (CONTRACT.md): what was paid, the most that may be refunded in total. */
    amountPaid: z.optional(amount),
  }),
);
export type TransactionDetail = z.infer<typeof transactionDetailSchema>;
export const transactionInfoData = z.lazy(() => z.looseObject({ transaction: transactionDetailSchema }));
