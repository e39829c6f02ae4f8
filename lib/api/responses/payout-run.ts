import { PAYOUT_STATUSES } from '../../payouts/index.js';
import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import * as field from './common.js';

// Built on first use (z.lazy), like the other response schemas.

const location = z.lazy(() =>
  field.upTo(FIELD_MAXIMA.name).check(z.describe('where the run is read: /payout-runs/{runId}')),
);
const runStatus = z.enum([
  'pending_approval',
  'materialising',
  'sending',
  'completed',
  'needs_attention',
  'cancelled',
]);
const rowStatus = z.enum([...PAYOUT_STATUSES, 'not_created', 'refused', 'cancelled_unsent']);

/** What every view of a run shows: what the approver checks (count, total, largest rows, the file's checksum). */
const runFields = () => ({
  runId: field.wordText,
  status: runStatus,
  count: z.int().check(z.describe('rows in the file')),
  totalKobo: field.kobo,
  largestRows: z
    .array(z.object({ row: z.int(), reference: field.upTo(64), amountKobo: field.kobo }))
    .check(z.maxLength(5)),
  fileSha256: field.upTo(64).check(z.describe('SHA-256 (hex) of the body as uploaded')),
  source: z.enum(['csv', 'json']),
  requestedBy: field.PrincipalSchema,
  createdAt: field.instant,
  approvalReason: z.optional(field.sentence),
  approvedBy: z.optional(field.PrincipalSchema),
  approvedAt: z.optional(field.instant),
  firstApproval: z.optional(field.FirstApprovalSchema),
  materialised: z.int().check(z.describe('rows turned into payouts so far')),
  acknowledged: z.optional(
    z.object({ duplicateLines: z.int(), duplicateRunIds: z.array(field.wordText).check(z.maxLength(20)) }),
  ),
  cancelledBy: z.optional(field.PrincipalSchema),
  cancelledAt: z.optional(field.instant),
  rejection: z.optional(field.RejectionSchema),
  /** When its last row ended: completed, needs_attention, or a cancelled run whose rows have all settled. */
  endedAt: z.optional(field.instant),
  location,
});

/** A run as listed. */
export const PayoutRunSummarySchema = z.lazy(() => z.object(runFields()));
export const PayoutRunPageSchema = field.pageOf(PayoutRunSummarySchema);

/** A run with its progress. */
export const PayoutRunSchema = z.lazy(() =>
  z.object({
    ...runFields(),
    counts: z
      .partialRecord(rowStatus, z.int())
      .check(z.describe('rows per status of their payout; statuses with no row left out')),
    sentKobo: field.kobo,
    failedKobo: field.kobo,
    percentDone: z.int(),
    etaSeconds: z.optional(
      z
        .int()
        .check(
          z.describe("at the provider's rate (PROVIDER_RATE_LIMIT_PER_SECOND); absent when unknown or done"),
        ),
    ),
  }),
);

/** A row of a run with its payout. */
export const PayoutRunRowSchema = z.lazy(() =>
  z.object({
    row: z.int(),
    reference: field.upTo(64),
    amountKobo: field.kobo,
    accountNumber: field.wordText,
    bankCode: field.wordText,
    status: rowStatus,
    payoutId: z.optional(field.idText),
    providerReference: z.optional(field.referenceText),
    failure: z.optional(field.FailureSchema),
  }),
);
export const PayoutRunRowPageSchema = field.pageOf(PayoutRunRowSchema);

/** The answer to a cancel: the run and what became of its payouts. */
export const CancelledPayoutRunSchema = z.lazy(() =>
  z.object({
    ...runFields(),
    cancelledPayouts: z.int().check(z.describe('payouts not yet claimed, cancelled now')),
    standingPayouts: z.int().check(z.describe('payouts already claimed or sent: they stand')),
  }),
);
