import { RefundStatus } from '../../refunds/index.js';
import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import {
  FailureSchema,
  FirstApprovalSchema,
  idText,
  instant,
  kobo,
  omittedCount,
  PrincipalSchema,
  pageOf,
  RejectionSchema,
  referenceText,
  sentence,
  wordText,
} from './common.js';

// Built on first use (z.lazy): the route table holds these for the OpenAPI document, which a cold start never
// builds; the generated document is the same (test/api/other-routes.test.ts compares it with docs/openapi.json).

const statuses = z.lazy(() => z.enum(Object.values(RefundStatus) as [RefundStatus, ...RefundStatus[]]));

/** The fields of a refund as every answer gives it (its audit only on `GET /refunds/{id}`). */
const refundFields = () => ({
  id: idText,
  status: statuses,
  transactionId: referenceText,
  amount: kobo,
  currency: z.literal('NGN'),
  customerNote: sentence,
  merchantNote: sentence,
  idempotencyKey: idText,
  requestedBy: PrincipalSchema,
  approvedBy: z.optional(PrincipalSchema),
  firstApproval: z.optional(FirstApprovalSchema),
  rejection: z.optional(RejectionSchema),
  providerRefundId: z.optional(referenceText),
  providerStatus: z.optional(wordText),
  failure: z.optional(FailureSchema),
  resolutionProposal: z.optional(
    z
      .object({
        outcome: z.enum(['not_sent', 'accepted']),
        providerRefundId: z.optional(referenceText),
        note: sentence,
        proposedBy: PrincipalSchema,
        proposedAt: instant,
      })
      .check(
        z.describe('the resolution of an unknown refund, waiting for a second person to send the same one'),
      ),
  ),
  createdAt: instant,
  updatedAt: instant,
});

export const RefundResponseSchema = z.lazy(() => z.object(refundFields()));

/** `GET /refunds/{id}`: the refund with its audit trail. */
export const RefundDetailSchema = z.lazy(() =>
  z.object({
    ...refundFields(),
    audit: z.optional(
      z
        .array(
          z.object({
            sequence: z.int(),
            at: instant,
            actor: PrincipalSchema,
            from: z.optional(statuses),
            to: statuses,
            reason: sentence,
          }),
        )
        .check(
          z.maxLength(FIELD_MAXIMA.audit),
          z.describe(
            `GET /refunds/{id} only, oldest first (the newest ${FIELD_MAXIMA.audit}): who requested, who approved, each change`,
          ),
        ),
    ),
    auditOmitted: omittedCount,
  }),
);
export type RefundResponse = z.output<typeof RefundResponseSchema>;

export const RefundPageSchema = pageOf(RefundResponseSchema);
