import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { TTL_ATTRIBUTE } from '../table/index.js';

/** How long a delivery claim holds off a concurrent copy of the same event (a Lambda retry waits it out). */
export const DELIVERY_LEASE_MS = 60_000;
/** Markers expire after this: EventBridge retries an event for at most a day, the archive replays 30. */
const MARKER_DAYS = 35;

/** `NOTIFICATION#<eventId>`: infra/config/key-prefixes.ts `notification`. */
export const notificationKeys = {
  marker: (eventId: string) => ({ pk: { S: `NOTIFICATION#${eventId}` }, sk: { S: 'NOTIFICATION' } }),
};

/** What a claim found: another delivery holds the event or finished it, or the channels already delivered. */
export type Claim =
  | { readonly claimed: false }
  | { readonly claimed: true; readonly delivered: readonly string[] };

/**
 * One marker item per notified event, so a redelivered event notifies once: a conditional claim (no marker, or a
 * lapsed claim of a delivery that failed or died) before sending, each channel recorded as it delivers, `done`
 * at the end. A retry after a partial failure sends only to the channels that had not delivered.
 */
export class DeliveryMarkers {
  constructor(
    private readonly dynamoDb: Pick<DynamoDBClient, 'send'>,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {}

  async claim(eventId: string): Promise<Claim> {
    const now = this.now();
    try {
      const { Attributes } = await this.dynamoDb.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: notificationKeys.marker(eventId),
          UpdateExpression: 'SET entity = :entity, leaseUntil = :lease, #ttl = if_not_exists(#ttl, :ttl)',
          ConditionExpression:
            'attribute_not_exists(pk) OR (attribute_not_exists(done) AND leaseUntil < :now)',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: {
            ':entity': { S: 'notification' },
            ':lease': { N: String(now + DELIVERY_LEASE_MS) },
            ':now': { N: String(now) },
            ':ttl': { N: String(Math.floor(now / 1000) + MARKER_DAYS * 86_400) },
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { claimed: true, delivered: Attributes?.delivered?.SS ?? [] };
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException')
        return { claimed: false };
      throw error;
    }
  }

  /** Records that `channel` delivered the event. */
  async delivered(eventId: string, channel: string): Promise<void> {
    await this.#update(eventId, 'ADD delivered :channel', { ':channel': { SS: [channel] } });
  }

  /** Every channel delivered: the event is never sent again. */
  async done(eventId: string): Promise<void> {
    await this.#update(eventId, 'SET done = :true REMOVE leaseUntil', { ':true': { BOOL: true } });
  }

  /** A delivery failed: its claim lapses at once, so the retry is not held off by it. */
  async release(eventId: string): Promise<void> {
    await this.#update(eventId, 'SET leaseUntil = :zero', { ':zero': { N: '0' } });
  }

  /** Whether the event's notification was fully delivered (tests and operators read it). */
  async isDone(eventId: string): Promise<boolean> {
    const { Item } = await this.dynamoDb.send(
      new GetItemCommand({
        TableName: this.tableName,
        Key: notificationKeys.marker(eventId),
        ConsistentRead: true,
      }),
    );
    return Item?.done?.BOOL === true;
  }

  async #update(eventId: string, expression: string, values: Record<string, AttributeValue>) {
    await this.dynamoDb.send(
      new UpdateItemCommand({
        TableName: this.tableName,
        Key: notificationKeys.marker(eventId),
        UpdateExpression: expression,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: values,
      }),
    );
  }
}
