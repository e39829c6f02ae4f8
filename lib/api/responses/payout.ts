import {
  PAYOUT_STATUSES,
  PAYOUT_TYPES,
  PayoutOrigin,
  type PayoutStatus,
  type PayoutType,
} from '../../payouts/index.js';
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
  upTo,
  wordText,
} from './common.js';

// Built on first use (z.lazy): the route table holds these for the OpenAPI document, which a cold start never
// builds; the generated document is the same (test/api/other-routes.test.ts compares it with docs/openapi.json).

const statuses = z.lazy(() => z.enum(PAYOUT_STATUSES as [PayoutStatus, ...PayoutStatus[]]));
const types = z.lazy(() => z.enum(PAYOUT_TYPES as [PayoutType, ...PayoutType[]]));

export const BeneficiaryResponseSchema = z.lazy(() =>
  z.object({
    bankCode: wordText,
    accountNumber: wordText,
    accountName: upTo(FIELD_MAXIMA.name),
  }),
);

/** The instruction fields of a payout's `type`, at the top level: only those of its type are present. */
export const instructionFields = () => ({
  beneficiary: z.optional(BeneficiaryResponseSchema),
  sourceWalletId: z.optional(wordText),
  destinationWalletId: z.optional(wordText),
  walletId: z.optional(wordText),
  childAccountId: z.optional(wordText),
});

/** Labels as a client (or the service) set them: at most 10 keys of 40 characters, strings of 200. */
export const MetadataResponseSchema = z.lazy(() =>
  z
    .record(
      upTo(FIELD_MAXIMA.metadataKey),
      z.union([upTo(FIELD_MAXIMA.metadataValue), z.number(), z.boolean(), z.null()]),
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
    at: instant,
    actor: PrincipalSchema,
    from: z.nullable(statuses),
    to: statuses,
    reason: sentence,
    details: z.optional(MetadataResponseSchema),
  }),
);

/** The fields of a payout as every answer gives it (its audit only on `GET /payouts/{id}`). */
const payoutFields = () => ({
  id: idText,
  type: types,
  status: statuses,
  amount: kobo,
  currency: z.literal('NGN'),
  narration: upTo(FIELD_MAXIMA.name),
  ...instructionFields(),
  metadata: MetadataResponseSchema,
  idempotencyKey: idText,
  origin: z.enum(Object.values(PayoutOrigin) as [PayoutOrigin, ...PayoutOrigin[]]),
  correlationId: z.optional(
    idText.check(z.describe('what ties its log lines, messages and events together: query the logs by it')),
  ),
  scheduleAt: z.optional(instant),
  requestedBy: PrincipalSchema,
  approvedBy: z.optional(PrincipalSchema),
  rejection: z.optional(RejectionSchema),
  submissionCount: z.int(),
  nextActionAt: z.optional(instant),
  receipt: z.optional(
    z.object({
      transactionId: referenceText,
      reference: z.optional(referenceText),
      sessionId: z.optional(referenceText),
      status: wordText,
      charges: kobo,
      paidAt: z.optional(wordText),
    }),
  ),
  failure: z.optional(FailureSchema),
  paidTwice: z.optional(
    z
      .object({
        attempts: z.array(z.int()).check(z.maxLength(FIELD_MAXIMA.items)),
        transactionIds: z.array(referenceText).check(z.maxLength(FIELD_MAXIMA.items)),
      })
      .check(z.describe('present when more than one attempt moved the money (status needs_review)')),
  ),
  watchedAttempts: z.optional(
    z
      .array(z.object({ attempt: z.int(), startedAt: instant, watchUntil: instant }))
      .check(
        z.maxLength(FIELD_MAXIMA.items),
        z.describe(
          'earlier attempts proved absent, still looked for at the provider until `watchUntil` (the latest 20)',
        ),
      ),
  ),
  watchEndedAt: z.optional(instant),
  resolutionProposal: z.optional(
    z
      .object({
        outcome: z.enum(['succeeded', 'failed', 'paid_twice_recovered']),
        transactionId: z.optional(referenceText),
        recoveryReference: z.optional(referenceText),
        forced: z.boolean().check(z.describe('the proposal overrides what the provider records show')),
        note: sentence,
        proposedBy: PrincipalSchema,
        proposedAt: instant,
        mismatch: z.optional(sentence),
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
        recoveryReference: referenceText,
        proposedBy: PrincipalSchema,
        confirmedBy: PrincipalSchema,
        at: instant,
      })
      .check(
        z.describe(
          'present on a payout paid twice that two people closed as paid_twice_recovered (status succeeded): how the extra money of the records in `paidTwice` was recovered',
        ),
      ),
  ),
  createdAt: instant,
  updatedAt: instant,
});

const payoutDescription =
  'A payout. `amount` and `receipt.charges` are integer kobo. The instruction fields of its `type` ' +
  '(`beneficiary`, `sourceWalletId`, `destinationWalletId`, `walletId`, `childAccountId`) appear at the top level.';

/**
 * The first of two approvals, in the answers about one payout only: a page of payouts at every field's maximum
 * is already near Lambda's 6 MB answer (test/infra/api-answer-sizes.test.ts), and the approvals queue shows it.
 */
const firstApprovalField = () => ({ firstApproval: z.optional(FirstApprovalSchema) });

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
      auditOmitted: omittedCount,
    })
    .check(z.describe(`${payoutDescription} With its audit trail, oldest first.`)),
);
export type PayoutResponse = z.output<typeof PayoutResponseSchema>;

export const PayoutPageSchema = pageOf(PayoutListItemSchema);

/** `GET /payouts/{id}/audit`: a page of the payout's whole audit trail, oldest first. */
export const PayoutAuditPageSchema = pageOf(PayoutAuditEventSchema);

const controlsFields = () => ({
  paused: z.boolean(),
  reason: z.optional(sentence),
  updatedBy: z.optional(PrincipalSchema),
  updatedAt: z.optional(instant),
});

export const ControlsResponseSchema = z.lazy(() => z.object(controlsFields()));

/** `GET /controls`: the pause, the limits in force, and how much of today's cap the main wallet has used. */
export const ControlsStateResponseSchema = z.lazy(() =>
  z.object({
    ...controlsFields(),
    limits: z.object({
      maxInstructionKobo: kobo.check(
        z.describe('the largest single payout, refund, rule occurrence or correction (MAX_PAYOUT_KOBO)'),
      ),
      approvalThresholdKobo: kobo.check(z.describe('at or above it a second person approves')),
      secondApprovalThresholdKobo: z.optional(
        kobo.check(z.describe('at or above it two approvals by two persons; absent: one')),
      ),
      dailyCapKobo: kobo.check(z.describe('the most that may leave one account per day')),
    }),
    dailyCap: z.object({
      day: upTo(10).check(z.describe("the cap's calendar day (YYYY-MM-DD, in its time zone)")),
      timeZone: upTo(64),
      mainWalletUsedKobo: kobo.check(z.describe("counted against the main wallet's cap today")),
    }),
  }),
);
