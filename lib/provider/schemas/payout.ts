import * as z from 'zod/mini';

// Each schema is built on first use (z.lazy): every function loads all the provider's resources but parses few of
// them, and building them at load was a large part of a cold start's zod work (docs/cold-start.md).
import { amount, metadata, timestamp } from './common.js';
import { listData, perpagePagination } from './pagination.js';

/** `data.transaction` of GET /payout/details. */
export const payoutDetailSchema = z.lazy(() =>
  z.looseObject({
    id: z.string(),
    vat: amount,
    type: z.string(),
    amount,
    status: z.string(),
    charges: amount,
    reference: z.string(),
    sessionId: z.string(),
    amountProcessed: amount,
    createdAt: timestamp,
    narration: z.string(),
    recipientBankCode: z.string(),
    recipientBankName: z.string(),
    recipientAccountName: z.string(),
    recipientAccountNumber: z.string(),
    originatorAccountName: z.string(),
    originatorAccountNumber: z.string(),
  }),
);
export type PayoutDetail = z.infer<typeof payoutDetailSchema>;
export const payoutDetailsData = z.lazy(() => z.looseObject({ transaction: payoutDetailSchema }));

/** Item of `data.records` in GET /payout/single/recurrent. */
export const recurrentPayoutSchema = z.lazy(() =>
  z.looseObject({
    id: z.string(),
    email: z.string(),
    amount,
    status: z.string(),
    charges: amount,
    interval: z.string(),
    startDate: timestamp,
    endDate: timestamp,
    bankName: z.string(),
    bankCode: z.string(),
    accountName: z.string(),
    accountNumber: z.string(),
    narration: z.string(),
    metadata: z.nullable(metadata),
    createdAt: timestamp,
  }),
);
export type RecurrentPayout = z.infer<typeof recurrentPayoutSchema>;
export const recurrentPayoutListData = listData(perpagePagination, 'records', recurrentPayoutSchema);

/** Item of `data.records` in GET /payout/single/schedule. */
export const scheduledPayoutSchema = z.lazy(() =>
  z.looseObject({
    id: z.string(),
    email: z.nullable(z.string()),
    amount,
    status: z.string(),
    charges: amount,
    scheduleDate: timestamp,
    transactionId: z.nullable(z.string()),
    accountNumber: z.string(),
    accountName: z.nullable(z.string()),
    bankName: z.string(),
    bankCode: z.string(),
    narration: z.nullable(z.string()),
    metadata: z.nullable(metadata),
    createdAt: timestamp,
  }),
);
export type ScheduledPayout = z.infer<typeof scheduledPayoutSchema>;
export const scheduledPayoutListData = listData(perpagePagination, 'records', scheduledPayoutSchema);
