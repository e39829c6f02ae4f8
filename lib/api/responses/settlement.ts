import { PAYOUT_STATUSES, type PayoutStatus } from '../../payouts/index.js';
import * as z from '../../shared/zod.js';
import { idText, instant, kobo, PrincipalSchema, pageOf, sentence, wordText } from './common.js';
import { PayoutResponseSchema } from './payout.js';

// Built on first use (z.lazy): the route table holds these for the OpenAPI document, which a cold start never
// builds; the generated document is the same (test/api/other-routes.test.ts compares it with docs/openapi.json).

const SettlementSnapshotSchema = z.lazy(() =>
  z
    .object({
      status: wordText,
      category: wordText,
      amountKobo: z.optional(kobo),
      date: wordText,
    })
    .check(z.describe("the provider's record as read fresh when deciding")),
);
const trigger = z.lazy(() => z.enum(['event', 'api', 'poll']));

export const SettlementDecisionResponseSchema = z.lazy(() =>
  z.object({
    settlementId: idText,
    decision: z
      .enum(['paid', 'awaiting_approval', 'skipped'])
      .check(
        z.describe(
          'awaiting_approval: to be paid, its payout waiting for a second person to approve it (then paid)',
        ),
      ),
    code: z.optional(
      wordText.check(
        z.describe('why it was skipped, e.g. BEFORE_CUTOFF, BELOW_MINIMUM, SETTLEMENT_NOT_SUCCESSFUL'),
      ),
    ),
    reason: sentence,
    payoutId: z.optional(idText),
    payoutStatus: z.optional(
      z
        .enum(PAYOUT_STATUSES as [PayoutStatus, ...PayoutStatus[]])
        .check(z.describe("the payout's status as read with the decision")),
    ),
    amount: z.optional(kobo.check(z.describe('kobo paid out (after the keep-back)'))),
    currency: z.optional(z.literal('NGN')),
    settlement: SettlementSnapshotSchema,
    trigger,
    decidedBy: PrincipalSchema,
    decidedAt: instant,
  }),
);

/** A settlement not decided yet because a trigger came outside the allowed hours: the next trigger decides. */
export const SettlementDeferralResponseSchema = z.lazy(() =>
  z.object({
    settlementId: idText,
    decision: z.literal('deferred'),
    code: wordText.check(z.describe('why it was deferred, e.g. OUTSIDE_ALLOWED_HOURS')),
    reason: sentence,
    settlement: SettlementSnapshotSchema,
    trigger,
    deferredBy: PrincipalSchema,
    deferredAt: instant,
  }),
);

/** The decision on a settlement, or its open deferral while there is none. */
export const SettlementListingSchema = z.lazy(() =>
  z.union([SettlementDecisionResponseSchema, SettlementDeferralResponseSchema]),
);

export const SettlementPageSchema = pageOf(SettlementListingSchema);

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
  z.object({ outcome: z.literal('deferred'), reason: sentence }),
);
