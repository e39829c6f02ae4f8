import { RefundStatus } from '../../refunds/index.js';
import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import * as field from './common.js';

const statuses = z.lazy(() => z.enum(Object.values(RefundStatus) as [RefundStatus, ...RefundStatus[]]));

/** The fields of a refund as every answer gives it (its audit only on `GET /refunds/{id}`). */
const refundFields = () => ({
  id: field.idText,
  status: statuses,
  transactionId: field.referenceText,
  amount: field.kobo,
  currency: z.literal('NGN'),
  customerNote: field.sentence,
  merchantNote: field.sentence,
  idempotencyKey: field.idText,
  requestedBy: field.PrincipalSchema,
  approvedBy: z.optional(field.PrincipalSchema),
  firstApproval: z.optional(field.FirstApprovalSchema),
  rejection: z.optional(field.RejectionSchema),
  providerRefundId: z.optional(field.referenceText),
  providerStatus: z.optional(field.wordText),
  failure: z.optional(field.FailureSchema),
  resolutionProposal: z.optional(
    z
      .object({
        outcome: z.enum(['not_sent', 'accepted']),
        providerRefundId: z.optional(field.referenceText),
        note: field.sentence,
        proposedBy: field.PrincipalSchema,
        proposedAt: field.instant,
      })
      .check(
        z.describe('the resolution of an unknown refund, waiting for a second person to send the same one'),
      ),
  ),
  createdAt: field.instant,
  updatedAt: field.instant,
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
            at: field.instant,
            actor: field.PrincipalSchema,
            from: z.optional(statuses),
            to: statuses,
            reason: field.sentence,
          }),
        )
        .check(
          z.maxLength(FIELD_MAXIMA.audit),
          z.describe(
            `GET /refunds/{id} only, oldest first (the newest ${FIELD_MAXIMA.audit}): who requested, who approved, each change`,
          ),
        ),
    ),
    auditOmitted: field.omittedCount,
  }),
);
export type RefundResponse = z.output<typeof RefundResponseSchema>;

export const RefundPageSchema = field.pageOf(RefundResponseSchema);
