import { CORRECTION_FIELD_NAMES, JobItemStatus, JobStatus } from '../../bulk-corrections/index.js';
import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import * as field from './common.js';

const itemStatus = z.enum(Object.values(JobItemStatus));
const location = z.lazy(() =>
  field.upTo(FIELD_MAXIMA.name).check(z.describe('where the job is read: /bulk-correction-jobs/{jobId}')),
);

/** What every view of a job starts with: its id, size, source, requester and time. */
const jobFields = () => ({
  jobId: field.wordText,
  total: z.int().check(z.describe('rows in the batch')),
  source: z.enum(['json', 'csv']),
  requestedBy: field.PrincipalSchema,
  createdAt: field.instant,
});

/** A correction job as stored: the batch accepted at once. */
export const CorrectionJobSummarySchema = z.lazy(() =>
  z.object({
    ...jobFields(),
    location,
  }),
);

/** A job with its rows counted by state and its progress. */
export const CorrectionJobSchema = z.lazy(() =>
  z.object({
    ...jobFields(),
    status: z.enum(Object.values(JobStatus)),
    counts: z
      .partialRecord(itemStatus, z.int())
      .check(z.describe('rows per state; states with no row are left out')),
    progress: z.object({
      done: z.int().check(z.describe('rows with a final result')),
      total: z.int(),
      percent: z.int(),
    }),
    location,
  }),
);

/** `202` of `POST /bulk-payout-items/corrections`: the job just accepted (every row `queued`). */
export const AcceptedCorrectionJobSchema = CorrectionJobSchema;

export const CorrectionJobPageSchema = field.pageOf(CorrectionJobSummarySchema);

/** One row of a job with its result. */
export const CorrectionJobItemSchema = z.lazy(() =>
  z.object({
    row: z.int().check(z.describe('the row in the batch, from 1')),
    bulkPayoutItemId: field.wordText,
    fields: z
      .partialRecord(z.enum(CORRECTION_FIELD_NAMES), z.union([field.upTo(FIELD_MAXIMA.name), z.number()]))
      .check(z.describe('the fields to set; amount in kobo')),
    status: itemStatus,
    isValid: z.optional(z.boolean()),
    reason: z.optional(z.nullable(field.sentence)),
    approvalReason: z.optional(field.sentence.check(z.describe('why a second person must approve the row'))),
    correctionId: z.optional(field.wordText),
    approve: z.optional(field.idText.check(z.describe('the call that approves a held row'))),
    failure: z.optional(field.FailureSchema),
    issues: z.optional(z.array(field.FieldIssueSchema).check(z.maxLength(FIELD_MAXIMA.rowIssues))),
    updatedAt: field.instant,
  }),
);

export const CorrectionJobItemPageSchema = field.pageOf(CorrectionJobItemSchema);
