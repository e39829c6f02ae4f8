import * as z from 'zod/mini';
import { amount, metadata, timestamp } from './common.js';
import { perpagePagination } from './pagination.js';

/** `data.transaction` of GET /payout/details. */
export const payoutDetailSchema = z.looseObject({
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
});
export type PayoutDetail = z.infer<typeof payoutDetailSchema>;
export const payoutDetailsData = z.looseObject({ transaction: payoutDetailSchema });

/** Item of `data.records` in GET /payout/single/recurrent. */
export const recurrentPayoutSchema = z.looseObject({
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
});
export type RecurrentPayout = z.infer<typeof recurrentPayoutSchema>;
export const recurrentPayoutListData = z.looseObject({
  ...perpagePagination,
  records: z.array(recurrentPayoutSchema),
});

/** Item of `data.records` in GET /payout/single/schedule. */
export const scheduledPayoutSchema = z.looseObject({
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
});
export type ScheduledPayout = z.infer<typeof scheduledPayoutSchema>;
export const scheduledPayoutListData = z.looseObject({
  ...perpagePagination,
  records: z.array(scheduledPayoutSchema),
});
