import * as z from 'zod/mini';

// Each schema is built on first use (z.lazy): every function loads all the provider's resources but parses few of
// them, and building them at load was a large part of a cold start's zod work (docs/cold-start.md).
import { amount, timestamp } from './common.js';

/** `data` of POST /refund. */
export const refundSchema = z.lazy(() =>
  z.looseObject({
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
  }),
);
export type Refund = z.infer<typeof refundSchema>;
