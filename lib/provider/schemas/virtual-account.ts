import * as z from 'zod/mini';
import { amount, metadata, timestamp } from './common.js';

/** `data` of GET /virtual-accounts. */
export const virtualAccountSchema = z.looseObject({
  id: z.string(),
  tier: z.int(),
  status: z.string(),
  bankCode: z.string(),
  bankName: z.string(),
  accountName: z.string(),
  accountNumber: z.string(),
  createdAt: timestamp,
  expiryDuration: z.int(),
  maxUsage: z.int(),
  currentUsage: z.int(),
  amount,
  merchantId: z.string(),
  settlementCharge: amount,
  initiationReference: z.string(),
  customerReference: z.string(),
  webhookURL: z.string(),
  customerMetadata: metadata,
  metadata,
});
export type VirtualAccount = z.infer<typeof virtualAccountSchema>;
