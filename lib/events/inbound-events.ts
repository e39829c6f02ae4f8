import type { CreatePayoutRequest } from '../payouts/index.js';
import { fieldIssues } from '../shared/validation.js';
import * as z from '../shared/zod.js';
import { InvalidEventError } from './inbound-errors.js';
import {
  InboundEnvelopeSchema,
  InboundEventType,
  PayoutRequestedDetailSchema,
  SettlementAvailableDetailSchema,
} from './schemas.js';

export interface PayoutRequestedEvent {
  readonly eventId: string;
  readonly source: string;
  /** `detail.idempotencyKey`, or the event's id when the sender gave none. */
  readonly idempotencyKey: string;
  readonly request: CreatePayoutRequest;
  readonly requestedBy?: string;
}

export interface SettlementAvailableEvent {
  readonly eventId: string;
  readonly settlementId: string;
}

/**
 * Validates an EventBridge `Payout Requested` event, envelope and detail.
 *
 * @throws InvalidEventError naming every wrong field (`detail.payout.amount`, `detail-type`, …)
 */
export function parsePayoutRequested(event: unknown): PayoutRequestedEvent {
  const envelope = parseEnvelope(event, InboundEventType.PayoutRequested);
  const detail = parseDetail(envelope.id, PayoutRequestedDetailSchema, envelope.detail);
  return {
    eventId: envelope.id,
    source: envelope.source,
    idempotencyKey: detail.idempotencyKey ?? envelope.id,
    request: detail.payout,
    ...(detail.requestedBy && { requestedBy: detail.requestedBy }),
  };
}

/**
 * Validates an EventBridge `Settlement Available` event.
 *
 * @throws InvalidEventError naming every wrong field
 */
export function parseSettlementAvailable(event: unknown): SettlementAvailableEvent {
  const envelope = parseEnvelope(event, InboundEventType.SettlementAvailable);
  const detail = parseDetail(envelope.id, SettlementAvailableDetailSchema, envelope.detail);
  return { eventId: envelope.id, settlementId: detail.settlementId };
}

function parseEnvelope(event: unknown, expected: InboundEventType): z.infer<typeof InboundEnvelopeSchema> {
  const parsed = InboundEnvelopeSchema.safeParse(event);
  const eventId = idOf(event);
  if (!parsed.success) throw new InvalidEventError(eventId, fieldIssues(parsed.error));
  if (parsed.data['detail-type'] !== expected) {
    throw new InvalidEventError(eventId, [
      { path: 'detail-type', message: `must be "${expected}" for this handler` },
    ]);
  }
  return parsed.data;
}

function parseDetail<T extends z.ZodMiniType>(eventId: string, schema: T, detail: unknown): z.infer<T> {
  const parsed = schema.safeParse(detail);
  if (!parsed.success) {
    throw new InvalidEventError(
      eventId,
      fieldIssues(parsed.error).map((issue) => ({
        path: issue.path === '(root)' ? 'detail' : `detail.${issue.path}`,
        message: issue.message,
      })),
    );
  }
  return parsed.data;
}

const IdOnly = z.object({ id: z.string() });

function idOf(event: unknown): string | undefined {
  const parsed = IdOnly.safeParse(event);
  return parsed.success ? parsed.data.id : undefined;
}
