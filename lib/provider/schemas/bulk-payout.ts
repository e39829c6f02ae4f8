import * as z from 'zod/mini';
import { timestamp } from './common.js';
import { sizePagination } from './pagination.js';

/** Item of `data.records` in PATCH /payout/bulk/item: the validation record of one bulk payout item. */
export const bulkPayoutItemRecordSchema = z.looseObject({
  id: z.string(),
  accountName: z.string(),
  accountNumber: z.string(),
  bankCode: z.string(),
  bankName: z.string(),
  reason: z.nullable(z.string()),
  isValid: z.boolean(),
  createdAt: timestamp,
});
export type BulkPayoutItemRecord = z.infer<typeof bulkPayoutItemRecordSchema>;
export const bulkPayoutItemUpdateData = z.looseObject({
  ...sizePagination,
  records: z.array(bulkPayoutItemRecordSchema),
});
