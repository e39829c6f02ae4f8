import { RefundStatus } from '../../refunds/model.js';
import * as z from '../../shared/zod.js';
import { FailureSchema, instant, kobo, PrincipalSchema, pageOf } from './common.js';

// Built on first use (z.lazy): the route table holds these for the OpenAPI document, which a cold start never
// builds; the generated document is the same (test/api/other-routes.test.ts compares it with docs/openapi.json).

const statuses = z.enum(Object.values(RefundStatus) as [RefundStatus, ...RefundStatus[]]);

export const RefundResponseSchema = z.lazy(() =>
  z.object({
    id: z.string(),
    status: statuses,
    transactionId: z.string(),
    amount: kobo,
    currency: z.literal('NGN'),
    customerNote: z.string(),
    merchantNote: z.string(),
    idempotencyKey: z.string(),
    requestedBy: PrincipalSchema,
    approvedBy: z.optional(PrincipalSchema),
    providerRefundId: z.optional(z.string()),
    providerStatus: z.optional(z.string()),
    failure: z.optional(FailureSchema),
    createdAt: instant,
    updatedAt: instant,
    audit: z.optional(
      z
        .array(
          z.object({
            sequence: z.int(),
            at: instant,
            actor: PrincipalSchema,
            from: z.optional(statuses),
            to: statuses,
            reason: z.string(),
          }),
        )
        .check(z.describe('GET /refunds/{id} only, oldest first: who requested, who approved, each change')),
    ),
  }),
);
export type RefundResponse = z.output<typeof RefundResponseSchema>;

export const RefundPageSchema = pageOf(RefundResponseSchema);
