import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DocumentClient, UpdateCommand } from '../../shared/document-client.js';
import { type ProviderRateLimiter, RateLimiterUnavailableError } from '../queue/rate-limiter.js';

/** The one item every worker paces itself by. */
const LIMITER_KEY = { pk: 'RATELIMIT#provider', sk: 'RATELIMIT' } as const;
/**
 * Conditional writes a reservation makes at most, all against the same instant `now`: append to a busy pacer
 * (`nextSlotAt >= now`); if it failed, start an idle one (`nextSlotAt < now`); if that failed too, another
 * worker moved it to `now` or later, and as it only ever grows the third write, an append, succeeds. A
 * reservation that starts with the idle write makes two at most: when it fails, the append that follows cannot.
 * Which write goes first is the limiter's guess (see `reserve`); a right guess is one write. The worker's worst
 * case counts all three (test/infra/handler-limits.test.ts).
 */
export const MAX_RESERVE_WRITES = 3;

/**
 * The longest head start an idle pacer's first slot is given (see `reserve`): a second of the provider's
 * limit. A reservation slower than that is a table in trouble, not a round trip worth planning for.
 */
export const MAX_RESERVE_LEAD_MS = 1_000;
/**
 * Round trips the head start is the median of. Not the longest: every idle restart leaves its head start
 * unused, while the odd slower round trip only costs the slots it made pass, which their sends replace.
 */
const ROUND_TRIPS_KEPT = 8;

/**
 * A fleet-wide pacer for the provider's rate limit, kept in one DynamoDB item: `nextSlotAt`, the first instant
 * (epoch ms) not yet given to anyone. A reservation of n slots moves it n intervals on in one conditional
 * update (from where it is when it is ahead, from now when it has passed); a 429 moves it to the end of the
 * Retry-After. Every send of every worker thus starts at its own slot, at most `perSecond` a second across the
 * fleet, and a batch costs one write, not one per payout, with no read-then-write round to lose under load.
 *
 * "Now" is the instant the reservation comes back, not the one it left at: the limiter measures its own round
 * trips and gives no slot that a typical one of them would have seen pass. Slots already passed when they reach
 * the worker would all be sent at once, and a burst of them on top of a second's sends is what a provider
 * counting requests per second answers with 429 (docs/submission.md).
 *
 * @example
 * const limiter = new DynamoDbRateLimiter(client, tableName, { perSecond: 50 });
 */
export class DynamoDbRateLimiter implements ProviderRateLimiter {
  readonly #doc: DocumentClient;
  readonly #intervalMs: number;
  readonly #now: () => number;
  /** The last reservations' round trips (ms, on the limiter's clock); their median is the next one's head start. */
  readonly #roundTripsMs: number[] = [];
  /** Whether this limiter's last reservation found the pacer idle; undefined before its first. */
  #foundIdle: boolean | undefined;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
    options: { perSecond: number; now?: () => number },
  ) {
    this.#doc = DocumentClient.from(client);
    this.#intervalMs = 1000 / options.perSecond;
    this.#now = options.now ?? Date.now;
  }

  async reserve(count: number, options: { signal?: AbortSignal } = {}): Promise<number[]> {
    if (count <= 0) return [];
    const span = count * this.#intervalMs;
    const slotsFrom = (start: number) =>
      Array.from({ length: count }, (_, index) => start + index * this.#intervalMs);
    // One instant for every write of this reservation: `nextSlotAt` only grows, so once the idle write fails
    // (it is at or past `now`), the append that follows cannot fail. `now` is when the answer is expected back.
    const sentAt = this.#now();
    const now = sentAt + Math.min(medianOf(this.#roundTripsMs), MAX_RESERVE_LEAD_MS);
    // The first write is the one that succeeded last time. Before any, a lone slot (one queued message with
    // nothing behind it) is taken for a quiet fleet and an idle pacer, a batch for a backlog and a busy one.
    const idleFirst = this.#foundIdle ?? count === 1;
    const slots = await this.#reserveFrom(now, span, slotsFrom, idleFirst, options.signal);
    this.#roundTripsMs.push(this.#now() - sentAt);
    if (this.#roundTripsMs.length > ROUND_TRIPS_KEPT) this.#roundTripsMs.shift();
    return slots;
  }

  async #reserveFrom(
    now: number,
    span: number,
    slotsFrom: (start: number) => number[],
    idleFirst: boolean,
    abortSignal: AbortSignal | undefined,
  ): Promise<number[]> {
    const sendOptions = abortSignal ? { abortSignal } : {};
    for (let write = 0; write < MAX_RESERVE_WRITES; write++) {
      // The two writes take turns, from the one guessed.
      const appends = write % 2 === (idleFirst ? 1 : 0);
      try {
        if (appends) {
          // A busy pacer (its next slot is ahead: the usual case while a backlog drains): take the next
          // `count` slots in one write that no other worker's reservation can make fail.
          const { Attributes } = await this.#doc.send(
            new UpdateCommand({
              TableName: this.tableName,
              Key: LIMITER_KEY,
              UpdateExpression: 'SET nextSlotAt = nextSlotAt + :span',
              ConditionExpression: 'nextSlotAt >= :now',
              ExpressionAttributeValues: { ':span': span, ':now': now },
              ReturnValues: 'UPDATED_NEW',
            }),
            sendOptions,
          );
          const next: unknown = Attributes?.nextSlotAt;
          if (typeof next === 'number') {
            this.#foundIdle = false;
            return slotsFrom(next - span);
          }
        } else {
          // An idle pacer (its next slot has passed, or it was never used): the slots start now.
          await this.#doc.send(
            new UpdateCommand({
              TableName: this.tableName,
              Key: LIMITER_KEY,
              UpdateExpression: 'SET nextSlotAt = :next',
              ConditionExpression: 'attribute_not_exists(pk) OR nextSlotAt < :now',
              ExpressionAttributeValues: { ':next': now + span, ':now': now },
            }),
            sendOptions,
          );
          this.#foundIdle = true;
          return slotsFrom(now);
        }
      } catch (error) {
        if (abortSignal?.aborted) {
          throw new RateLimiterUnavailableError('the reservation was given up', { cause: error });
        }
        // Busy turned idle, or idle turned busy (another worker reserved first): the other write applies.
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
    throw new RateLimiterUnavailableError(`no send slot after ${MAX_RESERVE_WRITES} conditional writes`);
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
}

function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.max(0, sorted[Math.floor(sorted.length / 2)] ?? 0);
}
