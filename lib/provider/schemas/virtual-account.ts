import * as z from 'zod/mini';

// Each schema is built on first use (z.lazy): every function loads all the provider's resources but parses few of
// them, and building them at load was a large part of a cold start's zod work (docs/cold-start.md).
import { amount, metadata, timestamp } from './common.js';

/** `data` of GET /virtual-accounts. */
export const virtualAccountSchema = z.lazy(() =>
  z.looseObject({
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
  }),
);
export type VirtualAccount = z.infer<typeof virtualAccountSchema>;
