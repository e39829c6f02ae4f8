import { PAYOUT_STATUSES } from '../../payouts/index.js';
import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import {
  FailureSchema,
  FirstApprovalSchema,
  idText,
  instant,
  kobo,
  PrincipalSchema,
  pageOf,
  RejectionSchema,
  referenceText,
  sentence,
  upTo,
  wordText,
} from './common.js';

// Built on first use (z.lazy), like the other response schemas.

const location = z.lazy(() =>
  upTo(FIELD_MAXIMA.name).check(z.describe('where the run is read: /payout-runs/{runId}')),
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
  runId: wordText,
  status: runStatus,
  count: z.int().check(z.describe('rows in the file')),
  totalKobo: kobo,
  largestRows: z
    .array(z.object({ row: z.int(), reference: upTo(64), amountKobo: kobo }))
    .check(z.maxLength(5)),
  fileSha256: upTo(64).check(z.describe('SHA-256 (hex) of the body as uploaded')),
  source: z.enum(['csv', 'json']),
  requestedBy: PrincipalSchema,
  createdAt: instant,
  approvalReason: z.optional(sentence),
  approvedBy: z.optional(PrincipalSchema),
  approvedAt: z.optional(instant),
  firstApproval: z.optional(FirstApprovalSchema),
  materialised: z.int().check(z.describe('rows turned into payouts so far')),
  acknowledged: z.optional(
    z.object({ duplicateLines: z.int(), duplicateRunIds: z.array(wordText).check(z.maxLength(20)) }),
  ),
  cancelledBy: z.optional(PrincipalSchema),
  cancelledAt: z.optional(instant),
  rejection: z.optional(RejectionSchema),
  /** When its last row ended: completed, needs_attention, or a cancelled run whose rows have all settled. */
  endedAt: z.optional(instant),
  location,
});

/** A run as listed. */
export const PayoutRunSummarySchema = z.lazy(() => z.object(runFields()));
export const PayoutRunPageSchema = pageOf(PayoutRunSummarySchema);

/** A run with its progress. */
export const PayoutRunSchema = z.lazy(() =>
  z.object({
    ...runFields(),
    counts: z
      .partialRecord(rowStatus, z.int())
      .check(z.describe('rows per status of their payout; statuses with no row left out')),
    sentKobo: kobo,
    failedKobo: kobo,
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
    reference: upTo(64),
    amountKobo: kobo,
    accountNumber: wordText,
    bankCode: wordText,
    status: rowStatus,
    payoutId: z.optional(idText),
    providerReference: z.optional(referenceText),
    failure: z.optional(FailureSchema),
  }),
);
export const PayoutRunRowPageSchema = pageOf(PayoutRunRowSchema);

/** The answer to a cancel: the run and what became of its payouts. */
export const CancelledPayoutRunSchema = z.lazy(() =>
  z.object({
    ...runFields(),
    cancelledPayouts: z.int().check(z.describe('payouts not yet claimed, cancelled now')),
    standingPayouts: z.int().check(z.describe('payouts already claimed or sent: they stand')),
  }),
);
