import { CORRECTABLE_FIELDS, CORRECTION_OUTCOMES } from '../../bulk-corrections/model.js';
import * as z from '../../shared/zod.js';
import { FailureSchema, instant, PrincipalSchema, pageOf } from './common.js';

// Built on first use (z.lazy): the route table holds these for the OpenAPI document, which a cold start never
// builds; the generated document is the same (test/api/other-routes.test.ts compares it with docs/openapi.json).

const fieldValue = z.lazy(() => z.union([z.string(), z.number()]));

export const FieldChangeSchema = z.lazy(() =>
  z.object({
    field: z.enum(CORRECTABLE_FIELDS),
    from: z.nullable(fieldValue).check(z.describe('null when no earlier value was known')),
    fromKnown: z.boolean(),
    to: fieldValue,
  }),
);

const outcomes = z.enum(CORRECTION_OUTCOMES);

/** The provider's validation record of an item. */
export const ValidationRecordSchema = z.lazy(() =>
  z.object({
    accountName: z.string(),
    accountNumber: z.string(),
    bankCode: z.string(),
    bankName: z.string(),
    isValid: z.boolean(),
    reason: z.nullable(z.string()),
    createdAt: z.string(),
  }),
);

export const BulkItemResponseSchema = z.object({
  bulkPayoutItemId: z.string(),
  isValid: z.boolean(),
  reason: z.nullable(z.string()),
  record: ValidationRecordSchema,
  values: z
    .object({
      accountNumber: z.optional(fieldValue),
      bankCode: z.optional(fieldValue),
      amountKobo: z.optional(fieldValue),
      phoneNumber: z.optional(fieldValue),
      narration: z.optional(fieldValue),
    })
    .check(z.describe('the values our corrections set')),
  updatedAt: instant,
});
export type BulkItemResponse = z.output<typeof BulkItemResponseSchema>;

export const CorrectionAuditSchema = z.lazy(() =>
  z.object({
    bulkPayoutItemId: z.string(),
    at: instant,
    actor: PrincipalSchema,
    approvedBy: z.optional(PrincipalSchema),
    changes: z.array(FieldChangeSchema),
    outcome: outcomes,
    provider: z.optional(z.object({ isValid: z.boolean(), reason: z.nullable(z.string()) })),
    failure: z.optional(FailureSchema),
  }),
);

/** A money change held for a second person. */
export const PendingCorrectionSchema = z.lazy(() =>
  z.object({
    correctionId: z.string(),
    bulkPayoutItemId: z.string(),
    fields: z.record(z.string(), fieldValue).check(z.describe('the fields as requested (amount in kobo)')),
    changes: z.array(FieldChangeSchema),
    reason: z.string().check(z.describe('why a second person must approve it')),
    status: z.enum(['pending_approval', 'approved']),
    requestedBy: PrincipalSchema,
    requestedAt: instant,
    approvedBy: z.optional(PrincipalSchema),
    approvedAt: z.optional(instant),
    outcome: z.optional(outcomes),
  }),
);

export const BulkItemPageSchema = pageOf(BulkItemResponseSchema);

export const BulkItemDetailSchema = z.lazy(() =>
  z.object({
    ...BulkItemResponseSchema.shape,
    audit: z.array(CorrectionAuditSchema).check(z.describe('one entry per correction sent, oldest first')),
    corrections: z.array(PendingCorrectionSchema).check(z.describe('money changes held for approval')),
  }),
);

/** A correction the provider saved: `corrected` (valid now) or `still_invalid` (with the provider's reason). */
export const AppliedCorrectionSchema = z.lazy(() =>
  z.object({
    outcome: z.enum(['corrected', 'still_invalid']),
    isValid: z.boolean(),
    reason: z.nullable(z.string()),
    item: BulkItemResponseSchema,
    changes: z.array(FieldChangeSchema),
  }),
);

/** `202`: the correction changes money and waits for a second person; nothing was sent. */
export const HeldCorrectionSchema = z.lazy(() =>
  z.object({
    outcome: z.literal('pending_approval'),
    correction: PendingCorrectionSchema,
  }),
);
