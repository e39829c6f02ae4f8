import {
  CORRECTABLE_FIELDS,
  CORRECTION_FIELD_NAMES,
  CORRECTION_OUTCOMES,
} from '../../bulk-corrections/index.js';
import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import * as field from './common.js';

const fieldValue = z.lazy(() => z.union([field.upTo(FIELD_MAXIMA.name), z.number()]));
/** One change a field at most: as many changes as correctable fields. */
const changes = () => z.array(FieldChangeSchema).check(z.maxLength(CORRECTABLE_FIELDS.length));

export const FieldChangeSchema = z.lazy(() =>
  z.object({
    field: z.enum(CORRECTABLE_FIELDS),
    from: z.nullable(fieldValue).check(z.describe('null when no earlier value was known')),
    fromKnown: z.boolean(),
    to: fieldValue,
  }),
);

const outcomes = z.lazy(() => z.enum(CORRECTION_OUTCOMES));

/** The provider's validation record of an item. */
export const ValidationRecordSchema = z.lazy(() =>
  z.object({
    accountName: field.upTo(FIELD_MAXIMA.name),
    accountNumber: field.wordText,
    bankCode: field.wordText,
    bankName: field.upTo(FIELD_MAXIMA.name),
    isValid: z.boolean(),
    reason: z.nullable(field.sentence),
    createdAt: field.wordText,
  }),
);

/** The fields of a bulk item's answer, also at the top of its detail. */
const bulkItemFields = () => ({
  bulkPayoutItemId: field.wordText,
  isValid: z.boolean(),
  reason: z.nullable(field.sentence),
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
  updatedAt: field.instant,
});

export const BulkItemResponseSchema = z.lazy(() => z.object(bulkItemFields()));
export type BulkItemResponse = z.output<typeof BulkItemResponseSchema>;

export const CorrectionAuditSchema = z.lazy(() =>
  z.object({
    bulkPayoutItemId: field.wordText,
    at: field.instant,
    actor: field.PrincipalSchema,
    approvedBy: z.optional(field.PrincipalSchema),
    changes: changes(),
    outcome: outcomes,
    provider: z.optional(z.object({ isValid: z.boolean(), reason: z.nullable(field.sentence) })),
    failure: z.optional(field.FailureSchema),
  }),
);

/** A money change held for a second person. */
export const PendingCorrectionSchema = z.lazy(() =>
  z.object({
    correctionId: field.wordText,
    bulkPayoutItemId: field.wordText,
    fields: z
      .partialRecord(z.enum(CORRECTION_FIELD_NAMES), fieldValue)
      .check(z.describe('the fields as requested (amount in kobo)')),
    changes: changes(),
    reason: field.sentence.check(z.describe('why a second person must approve it')),
    status: z.enum(['pending_approval', 'approved', 'cancelled']),
    requestedBy: field.PrincipalSchema,
    requestedAt: field.instant,
    approvedBy: z.optional(field.PrincipalSchema),
    approvedAt: z.optional(field.instant),
    firstApproval: z.optional(field.FirstApprovalSchema),
    outcome: z.optional(outcomes),
    cancelledBy: z.optional(field.PrincipalSchema),
    cancelledAt: z.optional(field.instant),
    cancelReason: z.optional(
      field.sentence.check(z.describe('why it was withdrawn, as its canceller gave it')),
    ),
  }),
);

export const BulkItemPageSchema = field.pageOf(BulkItemResponseSchema);

export const BulkItemDetailSchema = z.lazy(() =>
  z.object({
    ...bulkItemFields(),
    audit: z
      .array(CorrectionAuditSchema)
      .check(
        z.maxLength(FIELD_MAXIMA.audit),
        z.describe(`one entry per correction sent, oldest first (the newest ${FIELD_MAXIMA.audit})`),
      ),
    auditOmitted: field.omittedCount,
    corrections: z
      .array(PendingCorrectionSchema)
      .check(
        z.maxLength(FIELD_MAXIMA.audit),
        z.describe(`money changes held for approval (the newest ${FIELD_MAXIMA.audit})`),
      ),
    correctionsOmitted: field.omittedCount,
  }),
);

/** A correction the provider saved: `corrected` (valid now) or `still_invalid` (with the provider's reason). */
export const AppliedCorrectionSchema = z.lazy(() =>
  z.object({
    outcome: z.enum(['corrected', 'still_invalid']),
    isValid: z.boolean(),
    reason: z.nullable(field.sentence),
    item: BulkItemResponseSchema,
    changes: changes(),
  }),
);

/** `202`: the correction changes money and waits for a second person; nothing was sent. */
export const HeldCorrectionSchema = z.lazy(() =>
  z.object({
    outcome: z.literal('pending_approval'),
    correction: PendingCorrectionSchema,
  }),
);
