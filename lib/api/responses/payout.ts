import {
  PAYOUT_STATUSES,
  PAYOUT_TYPES,
  PayoutOrigin,
  type PayoutStatus,
  type PayoutType,
} from '../../payouts/index.js';
import { FIELD_MAXIMA } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import * as field from './common.js';

const statuses = z.lazy(() => z.enum(PAYOUT_STATUSES as [PayoutStatus, ...PayoutStatus[]]));
const types = z.lazy(() => z.enum(PAYOUT_TYPES as [PayoutType, ...PayoutType[]]));

export const BeneficiaryResponseSchema = z.lazy(() =>
  z.object({
    bankCode: field.wordText,
    accountNumber: field.wordText,
    accountName: field.upTo(FIELD_MAXIMA.name),
  }),
);

/** The instruction fields of a payout's `type`, at the top level: only those of its type are present. */
export const instructionFields = () => ({
  beneficiary: z.optional(BeneficiaryResponseSchema),
  sourceWalletId: z.optional(field.wordText),
  destinationWalletId: z.optional(field.wordText),
  walletId: z.optional(field.wordText),
  childAccountId: z.optional(field.wordText),
});

/** Labels as a client (or the service) set them: at most 10 keys of 40 characters, strings of 200. */
export const MetadataResponseSchema = z.lazy(() =>
  z
    .record(
      field.upTo(FIELD_MAXIMA.metadataKey),
      z.union([field.upTo(FIELD_MAXIMA.metadataValue), z.number(), z.boolean(), z.null()]),
    )
    .check(
      z.meta({ maxProperties: FIELD_MAXIMA.metadataKeys, maxJsonBytes: FIELD_MAXIMA.metadataBytes }),
      z.describe(
        `at most ${FIELD_MAXIMA.metadataKeys} keys and ${FIELD_MAXIMA.metadataBytes} bytes as JSON (maxJsonBytes)`,
      ),
    ),
);

export const PayoutAuditEventSchema = z.lazy(() =>
  z.object({
    sequence: z.int(),
    at: field.instant,
    actor: field.PrincipalSchema,
    from: z.nullable(statuses),
    to: statuses,
    reason: field.sentence,
    details: z.optional(MetadataResponseSchema),
  }),
);

/** The fields of a payout as every answer gives it (its audit only on `GET /payouts/{id}`). */
const payoutFields = () => ({
  id: field.idText,
  type: types,
  status: statuses,
  amount: field.kobo,
  currency: z.literal('NGN'),
  narration: field.upTo(FIELD_MAXIMA.name),
  ...instructionFields(),
  metadata: MetadataResponseSchema,
  idempotencyKey: field.idText,
  origin: z.enum(Object.values(PayoutOrigin) as [PayoutOrigin, ...PayoutOrigin[]]),
  correlationId: z.optional(
    field.idText.check(
      z.describe('what ties its log lines, messages and events together: query the logs by it'),
    ),
  ),
  scheduleAt: z.optional(field.instant),
  requestedBy: field.PrincipalSchema,
  approvedBy: z.optional(field.PrincipalSchema),
  rejection: z.optional(field.RejectionSchema),
  submissionCount: z.int(),
  nextActionAt: z.optional(field.instant),
  receipt: z.optional(
    z.object({
      transactionId: field.referenceText,
      reference: z.optional(field.referenceText),
      sessionId: z.optional(field.referenceText),
      status: field.wordText,
      charges: field.kobo,
      paidAt: z.optional(field.wordText),
    }),
  ),
  failure: z.optional(field.FailureSchema),
  paidTwice: z.optional(
    z
      .object({
        attempts: z.array(z.int()).check(z.maxLength(FIELD_MAXIMA.items)),
        transactionIds: z.array(field.referenceText).check(z.maxLength(FIELD_MAXIMA.items)),
      })
      .check(z.describe('present when more than one attempt moved the money (status needs_review)')),
  ),
  watchedAttempts: z.optional(
    z
      .array(z.object({ attempt: z.int(), startedAt: field.instant, watchUntil: field.instant }))
      .check(
        z.maxLength(FIELD_MAXIMA.items),
        z.describe(
          'earlier attempts proved absent, still looked for at the provider until `watchUntil` (the latest 20)',
        ),
      ),
  ),
  watchEndedAt: z.optional(field.instant),
  resolutionProposal: z.optional(
    z
      .object({
        outcome: z.enum(['succeeded', 'failed', 'paid_twice_recovered']),
        transactionId: z.optional(field.referenceText),
        recoveryReference: z.optional(field.referenceText),
        forced: z.boolean().check(z.describe('the proposal overrides what the provider records show')),
        note: field.sentence,
        proposedBy: field.PrincipalSchema,
        proposedAt: field.instant,
        mismatch: z.optional(field.sentence),
      })
      .check(
        z.describe(
          'a resolution proposed by one person, waiting for a second person (another identity) to send the same decision',
        ),
      ),
  ),
  recovery: z.optional(
    z
      .object({
        recoveryReference: field.referenceText,
        proposedBy: field.PrincipalSchema,
        confirmedBy: field.PrincipalSchema,
        at: field.instant,
      })
      .check(
        z.describe(
          'present on a payout paid twice that two people closed as paid_twice_recovered (status succeeded): how the extra money of the records in `paidTwice` was recovered',
        ),
      ),
  ),
  createdAt: field.instant,
  updatedAt: field.instant,
});

const payoutDescription =
  'A payout. `amount` and `receipt.charges` are integer kobo. The instruction fields of its `type` ' +
  '(`beneficiary`, `sourceWalletId`, `destinationWalletId`, `walletId`, `childAccountId`) appear at the top level.';

/**
 * The first of two approvals, in the answers about one payout only: a page of payouts at every field's maximum
 * is already near Lambda's 6 MB answer (test/infra/api-answer-sizes.test.ts), and the approvals queue shows it.
 */
const firstApprovalField = () => ({ firstApproval: z.optional(field.FirstApprovalSchema) });

export const PayoutResponseSchema = z.lazy(() =>
  z.object({ ...payoutFields(), ...firstApprovalField() }).check(z.describe(payoutDescription)),
);

/** A payout in a listing: without its first of two approvals (`firstApprovalField`). */
const PayoutListItemSchema = z.lazy(() => z.object(payoutFields()).check(z.describe(payoutDescription)));

/** `GET /payouts/{id}`: the payout with its audit trail. */
export const PayoutDetailSchema = z.lazy(() =>
  z
    .object({
      ...payoutFields(),
      ...firstApprovalField(),
      audit: z.optional(
        z
          .array(PayoutAuditEventSchema)
          .check(
            z.maxLength(FIELD_MAXIMA.audit),
            z.describe(`GET /payouts/{id} only, oldest first (the newest ${FIELD_MAXIMA.audit})`),
          ),
      ),
      auditOmitted: field.omittedCount,
    })
    .check(z.describe(`${payoutDescription} With its audit trail, oldest first.`)),
);
export type PayoutResponse = z.output<typeof PayoutResponseSchema>;

export const PayoutPageSchema = field.pageOf(PayoutListItemSchema);

/** `GET /payouts/{id}/audit`: a page of the payout's whole audit trail, oldest first. */
export const PayoutAuditPageSchema = field.pageOf(PayoutAuditEventSchema);

const controlsFields = () => ({
  paused: z.boolean(),
  reason: z.optional(field.sentence),
  updatedBy: z.optional(field.PrincipalSchema),
  updatedAt: z.optional(field.instant),
});

export const ControlsResponseSchema = z.lazy(() => z.object(controlsFields()));

/** `GET /controls`: the pause, the limits in force, and how much of today's cap the main wallet has used. */
export const ControlsStateResponseSchema = z.lazy(() =>
  z.object({
    ...controlsFields(),
    limits: z.object({
      maxInstructionKobo: field.kobo.check(
        z.describe('the largest single payout, refund, rule occurrence or correction (MAX_PAYOUT_KOBO)'),
      ),
      approvalThresholdKobo: field.kobo.check(z.describe('at or above it a second person approves')),
      secondApprovalThresholdKobo: z.optional(
        field.kobo.check(z.describe('at or above it two approvals by two persons; absent: one')),
      ),
      dailyCapKobo: field.kobo.check(z.describe('the most that may leave one account per day')),
    }),
    dailyCap: z.object({
      day: field.upTo(10).check(z.describe("the cap's calendar day (YYYY-MM-DD, in its time zone)")),
      timeZone: field.upTo(64),
      mainWalletUsedKobo: field.kobo.check(z.describe("counted against the main wallet's cap today")),
    }),
  }),
);
