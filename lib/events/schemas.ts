import { CreatePayoutRequestSchema, IdempotencyKeySchema } from '../payouts/index.js';
import { clientText, issuedId } from '../shared/text.js';
import * as z from '../shared/zod.js';

/**
 * The events other systems send to this service on the EventBridge bus (inbound). The events this service
 * publishes about payout outcomes are in domain-events.ts, under their own source.
 */
export const INBOUND_EVENT_SOURCE = 'merchant.payouts';

export const InboundEventType = {
  PayoutRequested: 'Payout Requested',
  SettlementAvailable: 'Settlement Available',
} as const;
export type InboundEventType = (typeof InboundEventType)[keyof typeof InboundEventType];

/** Settlement ids as the provider issues them (UUID-shaped); bounded so they fit a narration and a key. */
export const SettlementIdSchema = z.lazy(issuedId);

/**
 * `detail` of `Payout Requested`, version 1: the same body as `POST /payouts`. The payout is created once per
 * `idempotencyKey`, or per the event's `id` when the sender gives none (a redelivery keeps its id).
 *
 * @example
 * { "version": "1", "idempotencyKey": "inv-2041", "requestedBy": "billing-service",
 *   "payout": { "type": "bank_transfer", "amount": 250000, "currency": "NGN", "narration": "invoice 2041",
 *               "beneficiary": { "bankCode": "058", "accountNumber": "0123456789", "accountName": "Ada Obi" } } }
 */
export const PayoutRequestedDetailSchema = z.lazy(() =>
  z.strictObject({
    version: z.literal('1'),
    idempotencyKey: z.optional(IdempotencyKeySchema),
    payout: CreatePayoutRequestSchema,
    /**
     * Who asked, as the sending system knows them: kept in the payout's audit as `statedRequester`, never taken
     * as its requester (the producer is), so nobody can name themselves into approving their own payout.
     */
    requestedBy: z.optional(clientText({ max: 128 })),
  }),
);
export type PayoutRequestedDetail = z.infer<typeof PayoutRequestedDetailSchema>;

/**
 * `detail` of `Settlement Available`, version 1. Only the id is taken: amount and status are read fresh from
 * the provider, never from the event.
 *
 * @example { "version": "1", "settlementId": "6c1f0e1a-93b4-4c59-8a55-0f7b0c3f6d11" }
 */
export const SettlementAvailableDetailSchema = z.lazy(() =>
  z.object({
    version: z.literal('1'),
    settlementId: SettlementIdSchema,
  }),
);
export type SettlementAvailableDetail = z.infer<typeof SettlementAvailableDetailSchema>;

/** The parts of the EventBridge envelope every inbound event must have. */
export const InboundEnvelopeSchema = z.lazy(() =>
  z.object({
    id: z.string().check(z.minLength(1), z.maxLength(255)),
    source: z.literal(INBOUND_EVENT_SOURCE),
    'detail-type': z.enum([InboundEventType.PayoutRequested, InboundEventType.SettlementAvailable]),
    detail: z.unknown(),
  }),
);
