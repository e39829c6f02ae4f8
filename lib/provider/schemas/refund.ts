import * as z from 'zod/mini';
import { amount, timestamp } from './common.js';

/** `data` of POST /refund. */
export const refundSchema = z.looseObject({
  id: z.string(),
  merchantId: z.string(),
  transactionId: z.string(),
  customerNote: z.string(),
  merchantNote: z.string(),
  amount,
  status: z.string(),
  createdAt: timestamp,
  updatedAt: timestamp,
  deletedAt: z.nullable(timestamp),
});
export type Refund = z.infer<typeof refundSchema>;
