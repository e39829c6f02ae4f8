import { fromPayoutItem, newlyPaidTwice, type Payout, PayoutStatus } from '../../payouts/index.js';
import { clipText } from '../../shared/field-limits.js';
import * as z from '../../shared/zod.js';
import { DOMAIN_EVENT_MAXIMA, kobo, upTo } from './event-fields.js';
import { decode, type PayoutStreamRecord } from './stream-record.js';

const { id, word, text, items } = DOMAIN_EVENT_MAXIMA;

/** The outcomes other systems subscribe to, by the status a payout reached. */
export const PUBLISHED_OUTCOMES = {
  [PayoutStatus.Succeeded]: 'Payout Succeeded',
  [PayoutStatus.Failed]: 'Payout Failed',
  [PayoutStatus.NeedsReview]: 'Payout Needs Review',
  [PayoutStatus.Missed]: 'Payout Missed',
} as const satisfies Partial<Record<PayoutStatus, string>>;

/**
 * Published instead of `Payout Needs Review` when the reconciler found more than one attempt of a payout paid
 * (status `needs_review`, `detail.paidTwice` naming the attempts and provider transactions).
 */
export const PAID_TWICE_EVENT = 'Payout Paid Twice';
export type DomainEventType =
  | (typeof PUBLISHED_OUTCOMES)[keyof typeof PUBLISHED_OUTCOMES]
  | typeof PAID_TWICE_EVENT;

/**
 * A domain event, version 1. `eventId` is `<payoutId>:<version>`: one per state change, so a consumer
 * that sees it twice (streams and EventBridge deliver at least once) can drop the second.
 */
export interface DomainEvent {
  readonly detailType: DomainEventType;
  readonly detail: {
    readonly version: '1';
    readonly eventId: string;
    readonly payoutId: string;
    readonly idempotencyKey: string;
    readonly origin: Payout['origin'];
    readonly type: Payout['instruction']['type'];
    readonly status: Payout['status'];
    readonly amountKobo: number;
    readonly currency: 'NGN';
    readonly sourceRef?: string;
    readonly correlationId?: string;
    readonly traceparent?: string;
    readonly receipt?: Payout['receipt'];
    readonly failure?: Payout['failure'];
    readonly paidTwice?: Payout['paidTwice'];
    readonly occurredAt: string;
  };
}

/** A domain event's `detail` with every maximum: what consumers may rely on, and what the size proof reads. */
export const DomainEventDetailSchema = z.strictObject({
  version: z.literal('1'),
  eventId: upTo(id),
  payoutId: upTo(id),
  idempotencyKey: upTo(id),
  origin: upTo(word),
  type: upTo(word),
  status: upTo(word),
  amountKobo: kobo,
  currency: z.literal('NGN'),
  sourceRef: z.optional(upTo(id)),
  /** What ties the payout's log lines, messages and events together, from its first request (docs/operations.md). */
  correlationId: z.optional(upTo(id)),
  /** The W3C traceparent of the request that created the payout: its trace, which the event continues. */
  traceparent: z.optional(upTo(id)),
  receipt: z.optional(
    z.strictObject({
      transactionId: upTo(id),
      reference: z.optional(upTo(id)),
      sessionId: z.optional(upTo(id)),
      status: upTo(word),
      chargesKobo: kobo,
      paidAt: z.optional(upTo(word)),
    }),
  ),
  failure: z.optional(z.strictObject({ code: upTo(word), message: upTo(text) })),
  paidTwice: z.optional(
    z.strictObject({
      attempts: z.array(kobo).check(z.maxLength(items)),
      transactionIds: z.array(upTo(id)).check(z.maxLength(items)),
    }),
  ),
  occurredAt: upTo(word),
});

/** The payout an item reads as, for its `paidTwice`; undefined when it no longer reads as one. */
function paidTwiceOf(item: Record<string, unknown>): Pick<Payout, 'paidTwice'> | undefined {
  try {
    return fromPayoutItem(item);
  } catch {
    return undefined;
  }
}

/**
 * Translates one table change into the domain event it stands for, if any. The state change and its
 * audit event were committed in one transaction; the stream carries every committed change exactly once
 * per record, so publishing from it can neither invent nor lose an outcome.
 */
export function domainEventOf(record: PayoutStreamRecord): DomainEvent | undefined {
  const image = record.dynamodb?.NewImage;
  if (!image || (record.eventName !== 'MODIFY' && record.eventName !== 'INSERT')) return undefined;
  const item = decode(image);
  if (item.entity !== 'payout') return undefined;
  const old = record.dynamodb?.OldImage ? decode(record.dynamodb.OldImage) : undefined;
  const payout = fromPayoutItem(item);
  if (old?.status === payout.status) return undefined;
  // `paidTwice` stays on a payout once set: only the change that found the double publishes it as one. An old
  // image that no longer reads as a payout counts as none: the double is published (an alarm too many, never one
  // too few).
  const before = old?.entity === 'payout' ? paidTwiceOf(old) : undefined;
  const detailType =
    payout.status === PayoutStatus.NeedsReview && newlyPaidTwice(before, payout)
      ? PAID_TWICE_EVENT
      : (PUBLISHED_OUTCOMES as Partial<Record<PayoutStatus, DomainEventType>>)[payout.status];
  if (!detailType) return undefined;
  const { receipt, failure, paidTwice } = payout;
  return {
    detailType,
    detail: {
      version: '1',
      eventId: clipText(`${payout.id}:${payout.version}`, id),
      payoutId: clipText(payout.id, id),
      idempotencyKey: clipText(payout.idempotencyKey, id),
      origin: payout.origin,
      type: payout.instruction.type,
      status: payout.status,
      amountKobo: payout.amountKobo,
      currency: payout.currency,
      ...(payout.sourceRef && { sourceRef: clipText(payout.sourceRef, id) }),
      ...(payout.correlationId && { correlationId: clipText(payout.correlationId, id) }),
      ...(payout.traceparent && { traceparent: clipText(payout.traceparent, id) }),
      ...(receipt && {
        receipt: {
          transactionId: clipText(receipt.transactionId, id),
          status: clipText(receipt.status, word),
          chargesKobo: receipt.chargesKobo,
          ...(receipt.paidAt !== undefined && { paidAt: clipText(receipt.paidAt, word) }),
          ...(receipt.reference !== undefined && { reference: clipText(receipt.reference, id) }),
          ...(receipt.sessionId !== undefined && { sessionId: clipText(receipt.sessionId, id) }),
        },
      }),
      ...(failure && {
        failure: { code: clipText(failure.code, word), message: clipText(failure.message, text) },
      }),
      ...(paidTwice && {
        paidTwice: {
          attempts: paidTwice.attempts.slice(0, items),
          transactionIds: paidTwice.transactionIds.slice(0, items).map((one) => clipText(one, id)),
        },
      }),
      occurredAt: payout.updatedAt,
    },
  };
}
