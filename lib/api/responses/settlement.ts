import { PAYOUT_STATUSES, type PayoutStatus } from '../../payouts/index.js';
import * as z from '../../shared/zod.js';
import * as field from './common.js';
import { PayoutResponseSchema } from './payout.js';

const SettlementSnapshotSchema = z.lazy(() =>
  z
    .object({
      status: field.wordText,
      category: field.wordText,
      amountKobo: z.optional(field.kobo),
      date: field.wordText,
    })
    .check(z.describe("the provider's record as read fresh when deciding")),
);
const trigger = z.lazy(() => z.enum(['event', 'api', 'poll']));

export const SettlementDecisionResponseSchema = z.lazy(() =>
  z.object({
    settlementId: field.idText,
    decision: z
      .enum(['paid', 'awaiting_approval', 'skipped'])
      .check(
        z.describe(
          'awaiting_approval: to be paid, its payout waiting for a second person to approve it (then paid)',
        ),
      ),
    code: z.optional(
      field.wordText.check(
        z.describe('why it was skipped, e.g. BEFORE_CUTOFF, BELOW_MINIMUM, SETTLEMENT_NOT_SUCCESSFUL'),
      ),
    ),
    reason: field.sentence,
    payoutId: z.optional(field.idText),
    payoutStatus: z.optional(
      z
        .enum(PAYOUT_STATUSES as [PayoutStatus, ...PayoutStatus[]])
        .check(z.describe("the payout's status as read with the decision")),
    ),
    amount: z.optional(field.kobo.check(z.describe('kobo paid out (after the keep-back)'))),
    currency: z.optional(z.literal('NGN')),
    settlement: SettlementSnapshotSchema,
    trigger,
    decidedBy: field.PrincipalSchema,
    decidedAt: field.instant,
  }),
);

/** A settlement not decided yet because a trigger came outside the allowed hours: the next trigger decides. */
export const SettlementDeferralResponseSchema = z.lazy(() =>
  z.object({
    settlementId: field.idText,
    decision: z.literal('deferred'),
    code: field.wordText.check(z.describe('why it was deferred, e.g. OUTSIDE_ALLOWED_HOURS')),
    reason: field.sentence,
    settlement: SettlementSnapshotSchema,
    trigger,
    deferredBy: field.PrincipalSchema,
    deferredAt: field.instant,
  }),
);

/** The decision on a settlement, or its open deferral while there is none. */
export const SettlementListingSchema = z.lazy(() =>
  z.union([SettlementDecisionResponseSchema, SettlementDeferralResponseSchema]),
);

export const SettlementPageSchema = field.pageOf(SettlementListingSchema);

/** `POST /instant-settlements` when a decision was made (200): paid (with the payout) or skipped. */
export const PayOutDecidedSchema = z.lazy(() =>
  z.object({
    outcome: z.enum(['paid', 'awaiting_approval', 'skipped']),
    decision: SettlementDecisionResponseSchema,
    payout: z.optional(PayoutResponseSchema),
  }),
);

/** `POST /instant-settlements` outside the allowed hours (202): nothing recorded, a later trigger decides. */
export const PayOutDeferredSchema = z.lazy(() =>
  z.object({ outcome: z.literal('deferred'), reason: field.sentence }),
);
