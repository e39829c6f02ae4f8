import { CORRECTION_FIELD_NAMES, JobItemStatus, JobStatus } from '../../bulk-corrections/index.js';
import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import {
  FailureSchema,
  FieldIssueSchema,
  idText,
  instant,
  PrincipalSchema,
  pageOf,
  sentence,
  upTo,
  wordText,
} from './common.js';

// Built on first use (z.lazy): the route table holds these for the OpenAPI document, which a cold start never
// builds; the generated document is the same (test/api/other-routes.test.ts compares it with docs/openapi.json).

const itemStatus = z.enum(Object.values(JobItemStatus));
const location = z.lazy(() =>
  upTo(FIELD_MAXIMA.name).check(z.describe('where the job is read: /bulk-correction-jobs/{jobId}')),
);

/** What every view of a job starts with: its id, size, source, requester and time. */
const jobFields = () => ({
  jobId: wordText,
  total: z.int().check(z.describe('rows in the batch')),
  source: z.enum(['json', 'csv']),
  requestedBy: PrincipalSchema,
  createdAt: instant,
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

export const CorrectionJobPageSchema = pageOf(CorrectionJobSummarySchema);

/** One row of a job with its result. */
export const CorrectionJobItemSchema = z.lazy(() =>
  z.object({
    row: z.int().check(z.describe('the row in the batch, from 1')),
    bulkPayoutItemId: wordText,
    fields: z
      .partialRecord(z.enum(CORRECTION_FIELD_NAMES), z.union([upTo(FIELD_MAXIMA.name), z.number()]))
      .check(z.describe('the fields to set; amount in kobo')),
    status: itemStatus,
    isValid: z.optional(z.boolean()),
    reason: z.optional(z.nullable(sentence)),
    approvalReason: z.optional(sentence.check(z.describe('why a second person must approve the row'))),
    correctionId: z.optional(wordText),
    approve: z.optional(idText.check(z.describe('the call that approves a held row'))),
    failure: z.optional(FailureSchema),
    issues: z.optional(z.array(FieldIssueSchema).check(z.maxLength(FIELD_MAXIMA.rowIssues))),
    updatedAt: instant,
  }),
);

export const CorrectionJobItemPageSchema = pageOf(CorrectionJobItemSchema);
