import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Payout } from '../payouts/model.js';
import { PayoutStatus } from '../payouts/model.js';
import { fromPayoutItem } from '../payouts/store/item-codec.js';

/** The EventBridge `source` of every domain event this project publishes. */
export const DOMAIN_EVENT_SOURCE = 'merchant.payouts.engine';

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
    readonly receipt?: Payout['receipt'];
    readonly failure?: Payout['failure'];
    readonly paidTwice?: Payout['paidTwice'];
    readonly occurredAt: string;
  };
}

/**
 * The part of a DynamoDB stream record the translation reads. The Lambda event and the Streams API type
 * the images differently, so they are taken as plain objects here.
 */
export interface PayoutStreamRecord {
  readonly eventName?: string;
  readonly dynamodb?: {
    readonly NewImage?: Readonly<Record<string, object>>;
    readonly OldImage?: Readonly<Record<string, object>>;
  };
}

/** DynamoDB JSON to plain values; the payout codec validates the result, so no shape is trusted here. */
function decode(image: Readonly<Record<string, object>>): Record<string, unknown> {
  return unmarshall(image as Record<string, AttributeValue>);
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
  const oldStatus = record.dynamodb?.OldImage ? decode(record.dynamodb.OldImage).status : undefined;
  const payout = fromPayoutItem(item);
  if (oldStatus === payout.status) return undefined;
  const detailType =
    payout.status === PayoutStatus.NeedsReview && payout.paidTwice
      ? PAID_TWICE_EVENT
      : (PUBLISHED_OUTCOMES as Partial<Record<PayoutStatus, DomainEventType>>)[payout.status];
  if (!detailType) return undefined;
  return {
    detailType,
    detail: {
      version: '1',
      eventId: `${payout.id}:${payout.version}`,
      payoutId: payout.id,
      idempotencyKey: payout.idempotencyKey,
      origin: payout.origin,
      type: payout.instruction.type,
      status: payout.status,
      amountKobo: payout.amountKobo,
      currency: payout.currency,
      ...(payout.sourceRef && { sourceRef: payout.sourceRef }),
      ...(payout.receipt && { receipt: payout.receipt }),
      ...(payout.failure && { failure: payout.failure }),
      ...(payout.paidTwice && { paidTwice: payout.paidTwice }),
      occurredAt: payout.updatedAt,
    },
  };
}
