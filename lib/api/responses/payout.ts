import {
  PAYOUT_STATUSES,
  PAYOUT_TYPES,
  PayoutOrigin,
  type PayoutStatus,
  type PayoutType,
} from '../../payouts/model.js';
import * as z from '../../shared/zod.js';
import { FailureSchema, instant, kobo, PrincipalSchema, pageOf } from './common.js';

// Built on first use (z.lazy): the route table holds these for the OpenAPI document, which a cold start never
// builds; the generated document is the same (test/api/other-routes.test.ts compares it with docs/openapi.json).

const statuses = z.enum(PAYOUT_STATUSES as [PayoutStatus, ...PayoutStatus[]]);
const types = z.enum(PAYOUT_TYPES as [PayoutType, ...PayoutType[]]);

export const BeneficiaryResponseSchema = z.lazy(() =>
  z.object({
    bankCode: z.string(),
    accountNumber: z.string(),
    accountName: z.string(),
  }),
);

/** The instruction fields of a payout's `type`, at the top level: only those of its type are present. */
export const instructionFields = {
  beneficiary: z.optional(BeneficiaryResponseSchema),
  sourceWalletId: z.optional(z.string()),
  destinationWalletId: z.optional(z.string()),
  walletId: z.optional(z.string()),
  childAccountId: z.optional(z.string()),
};

export const MetadataResponseSchema = z.record(
  z.string(),
  z.union([z.string(), z.number(), z.boolean(), z.null()]),
);

export const PayoutAuditEventSchema = z.lazy(() =>
  z.object({
    sequence: z.int(),
    at: instant,
    actor: PrincipalSchema,
    from: z.nullable(statuses),
    to: statuses,
    reason: z.string(),
    details: z.optional(MetadataResponseSchema),
  }),
);

export const PayoutResponseSchema = z.lazy(() =>
  z
    .object({
      id: z.string(),
      type: types,
      status: statuses,
      amount: kobo,
      currency: z.literal('NGN'),
      narration: z.string(),
      ...instructionFields,
      metadata: MetadataResponseSchema,
      idempotencyKey: z.string(),
      origin: z.enum(Object.values(PayoutOrigin) as [PayoutOrigin, ...PayoutOrigin[]]),
      scheduleAt: z.optional(instant),
      requestedBy: PrincipalSchema,
      approvedBy: z.optional(PrincipalSchema),
      submissionCount: z.int(),
      nextActionAt: z.optional(instant),
      receipt: z.optional(
        z.object({
          transactionId: z.string(),
          reference: z.optional(z.string()),
          sessionId: z.optional(z.string()),
          status: z.string(),
          charges: kobo,
          paidAt: z.optional(z.string()),
        }),
      ),
      failure: z.optional(FailureSchema),
      paidTwice: z.optional(
        z
          .object({ attempts: z.array(z.int()), transactionIds: z.array(z.string()) })
          .check(z.describe('present when more than one attempt moved the money (status needs_review)')),
      ),
      watchedAttempts: z.optional(
        z
          .array(z.object({ attempt: z.int(), startedAt: instant, watchUntil: instant }))
          .check(
            z.describe('earlier attempts proved absent, still looked for at the provider until `watchUntil`'),
          ),
      ),
      watchEndedAt: z.optional(instant),
      resolutionProposal: z.optional(
        z
          .object({
            outcome: z.literal('succeeded'),
            transactionId: z.string(),
            note: z.string(),
            proposedBy: PrincipalSchema,
            proposedAt: instant,
            mismatch: z.string(),
          })
          .check(z.describe('a forced resolution as paid, waiting for a second person to confirm it')),
      ),
      createdAt: instant,
      updatedAt: instant,
      audit: z.optional(
        z.array(PayoutAuditEventSchema).check(z.describe('GET /payouts/{id} only, oldest first')),
      ),
    })
    .check(
      z.describe(
        'A payout. `amount` and `receipt.charges` are integer kobo. The instruction fields of its `type` ' +
          '(`beneficiary`, `sourceWalletId`, `destinationWalletId`, `walletId`, `childAccountId`) appear at the top level.',
      ),
    ),
);
export type PayoutResponse = z.output<typeof PayoutResponseSchema>;

export const PayoutPageSchema = pageOf(PayoutResponseSchema);

export const ControlsResponseSchema = z.lazy(() =>
  z.object({
    paused: z.boolean(),
    reason: z.optional(z.string()),
    updatedBy: z.optional(PrincipalSchema),
    updatedAt: z.optional(instant),
  }),
);
