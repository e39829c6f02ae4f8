import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type ProviderRateLimiter, RateLimiterUnavailableError } from '../queue/rate-limiter.js';

/** The one item every worker paces itself by. */
const LIMITER_KEY = { pk: 'RATELIMIT#provider', sk: 'RATELIMIT' } as const;
/** Optimistic rounds before a reservation gives up (each loses only to another worker's reservation). */
const RESERVE_ROUNDS = 20;

/**
 * A fleet-wide pacer for the provider's rate limit, kept in one DynamoDB item: `nextSlotAt`, the first instant
 * (epoch ms) not yet given to anyone. A reservation of n slots reads it and moves it n intervals on with a
 * conditional update (compare-and-set on the value read); a 429 moves it to the end of the Retry-After. Every
 * send of every worker thus starts at its own slot, at most `perSecond` a second across the fleet, and a batch
 * costs one read and one write, not one per payout.
 *
 * @example
 * const limiter = new DynamoDbRateLimiter(client, tableName, { perSecond: 50 });
 */
export class DynamoDbRateLimiter implements ProviderRateLimiter {
  readonly #doc: DynamoDBDocumentClient;
  readonly #intervalMs: number;
  readonly #now: () => number;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
    options: { perSecond: number; now?: () => number },
  ) {
    this.#doc = DynamoDBDocumentClient.from(client);
    this.#intervalMs = 1000 / options.perSecond;
    this.#now = options.now ?? Date.now;
  }

  async reserve(count: number): Promise<number[]> {
    if (count <= 0) return [];
    for (let round = 0; round < RESERVE_ROUNDS; round++) {
      const seen = await this.#nextSlotAt();
      const start = Math.max(seen ?? 0, this.#now());
      try {
        await this.#doc.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: LIMITER_KEY,
            UpdateExpression: 'SET nextSlotAt = :next',
            ConditionExpression: seen === undefined ? 'attribute_not_exists(pk)' : 'nextSlotAt = :seen',
            ExpressionAttributeValues: {
              ':next': start + count * this.#intervalMs,
              ...(seen !== undefined && { ':seen': seen }),
            },
          }),
        );
        return Array.from({ length: count }, (_, index) => start + index * this.#intervalMs);
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
    throw new RateLimiterUnavailableError(`no send slot after ${RESERVE_ROUNDS} contended rounds`);
  }

  async coolDown(untilMs: number): Promise<void> {
    try {
      await this.#doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: LIMITER_KEY,
          UpdateExpression: 'SET nextSlotAt = :until',
          ConditionExpression: 'attribute_not_exists(pk) OR nextSlotAt < :until',
          ExpressionAttributeValues: { ':until': untilMs },
        }),
      );
    } catch (error) {
      // Someone already pushed the slots further: nothing to do.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  async #nextSlotAt(): Promise<number | undefined> {
    const { Item } = await this.#doc.send(
      new GetCommand({ TableName: this.tableName, Key: LIMITER_KEY, ConsistentRead: true }),
    );
    const value: unknown = Item?.nextSlotAt;
    return typeof value === 'number' ? value : undefined;
  }
}
