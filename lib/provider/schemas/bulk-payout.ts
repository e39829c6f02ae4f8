import * as z from 'zod/mini';

// Each schema is built on first use (z.lazy): every function loads all the provider's resources but parses few of
// them, and building them at load was a large part of a cold start's zod work (docs/cold-start.md).
import { timestamp } from './common.js';
import { listData, sizePagination } from './pagination.js';

/** Item of `data.records` in PATCH /payout/bulk/item: the validation record of one bulk payout item. */
export const bulkPayoutItemRecordSchema = z.lazy(() =>
  z.looseObject({
    id: z.string(),
    accountName: z.string(),
    accountNumber: z.string(),
    bankCode: z.string(),
    bankName: z.string(),
    reason: z.nullable(z.string()),
    isValid: z.boolean(),
    createdAt: timestamp,
  }),
);
export type BulkPayoutItemRecord = z.infer<typeof bulkPayoutItemRecordSchema>;
export const bulkPayoutItemUpdateData = listData(sizePagination, 'records', bulkPayoutItemRecordSchema);
