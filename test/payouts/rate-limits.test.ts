import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { outcomeTransition } from '../../lib/payouts/engine/submit-payout.js';
import { PayoutStatus } from '../../lib/payouts/model.js';
import { payoutSweeper } from '../../lib/payouts/payout-sweeper.js';
import { RateLimiterUnavailableError } from '../../lib/payouts/queue/rate-limiter.js';
import { DynamoDbRateLimiter } from '../../lib/payouts/store/dynamodb-rate-limiter.js';
import { createTestTable } from '../support/dynamodb.js';
import {
  bankTransfer,
  command,
  type EngineHarness,
  ledgerEntriesOf,
  startEngineHarness,
} from '../support/engine-harness.js';

let h: EngineHarness;
let keyCounter = 0;
const key = (label: string) => `${label}-${++keyCounter}`;

beforeAll(async () => {
  h = await startEngineHarness({ maxSubmissionAttempts: 2 });
});
afterAll(async () => h.close());
beforeEach(() => h.sandbox.reset());

/** Another table and pacer per test, so one test's slots never delay another's. */
async function pacers(count: number, perSecond: number, now: () => number) {
  const table = await createTestTable('pacer');
  return {
    limiters: Array.from(
      { length: count },
      () => new DynamoDbRateLimiter(table.client, table.tableName, { perSecond, now }),
    ),
    close: () => table.client.destroy(),
  };
}

describe("the provider's rate limit", () => {
  it('never fails a payout, however many 429s it gets: the attempt is not counted', async () => {
    const { payout } = await h.engine.create(command(bankTransfer(12_000), key('limited')));
    h.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'error-429', times: 5 });
    await h.engine.submit(payout.id);
    for (let attempt = 1; attempt <= 5; attempt++) {
      const now = await h.engine.get(payout.id);
      expect(now?.status).toBe(PayoutStatus.Pending);
      expect(now?.rateLimitedCount).toBe(attempt);
      h.clock.advance(2_000);
      // The sweeper sends it again once its Retry-After (1 s) has passed.
      await payoutSweeper(h.engine).sweep();
    }
    expect((await h.engine.get(payout.id))?.status).toBe(PayoutStatus.Succeeded);
    expect(h.sandbox.stats().requests['/settlement/instant/payout']).toBe(6);
    expect(ledgerEntriesOf(h.sandbox, payout.id)).toHaveLength(1);
  });

  it('still fails a payout after maxSubmissionAttempts "not sent" answers of any other kind', async () => {
    const { payout } = await h.engine.create(command(bankTransfer(13_000), key('unavailable')));
    const claimed = { ...payout, status: PayoutStatus.Submitting, submissionCount: 2 };
    const now = h.clock.now();
    const refused = { kind: 'not_sent', code: 'PROVIDER_403', message: 'forbidden' } as const;
    expect(outcomeTransition(h.engine.ctx, claimed, refused, now).to).toBe(PayoutStatus.Failed);
    const limited = {
      ...refused,
      code: 'PROVIDER_UNAVAILABLE',
      rateLimited: true,
      retryAfterMs: 1_000,
    } as const;
    expect(outcomeTransition(h.engine.ctx, claimed, limited, now)).toMatchObject({
      to: PayoutStatus.Pending,
      changes: { rateLimitedCount: 1, nextActionAt: new Date(now.getTime() + 1_000).toISOString() },
    });
    // Two attempts of which one met the rate limit count as one: not yet failed.
    const onceLimited = { ...claimed, rateLimitedCount: 1 };
    expect(outcomeTransition(h.engine.ctx, onceLimited, refused, now).to).toBe(PayoutStatus.Pending);
  });

  it('paces every worker of the fleet to the limit, each send its own slot', async () => {
    const now = 1_000_000;
    const { limiters, close } = await pacers(5, 100, () => now);
    try {
      const reserved = (await Promise.all(limiters.map((limiter) => limiter.reserve(10))))
        .flat()
        .sort((a, b) => a - b);
      expect(reserved).toHaveLength(50);
      // 100/s: one slot every 10 ms, none shared, the first now.
      expect(reserved[0]).toBe(now);
      for (const [index, slot] of reserved.entries()) expect(slot).toBeCloseTo(now + index * 10, 6);
    } finally {
      close();
    }
  });

  it('gives no slot that had passed when the reservation came back: an idle pacer starts a round trip ahead', async () => {
    // Every reading of this clock is 40 ms after the one before: each reservation's round trip takes 40 ms.
    let clock = 3_000_000;
    const { limiters, close } = await pacers(1, 100, () => {
      clock += 40;
      return clock;
    });
    const [limiter] = limiters;
    if (!limiter) throw new Error('no pacer');
    try {
      await limiter.reserve(1);
      // The pacer goes idle; the next reservation leaves at `clock + 40` and is back 40 ms later.
      clock += 10_000;
      const leftAt = clock + 40;
      const [first] = await limiter.reserve(5);
      expect(first).toBe(leftAt + 40);
      // A busy pacer whose next slot is nearer than a round trip is restarted the same way.
      const [next] = await limiter.reserve(1);
      expect(next).toBeGreaterThanOrEqual(clock);
    } finally {
      close();
    }
  });

  it('reserves in one write when it guesses the pacer right: a lone slot an idle pacer, a batch a busy one, then as found last', async () => {
    const now = 5_000_000;
    const table = await createTestTable('pacer');
    const writes: string[] = [];
    table.client.middlewareStack.add(
      (next) => async (args) => {
        const write = (args.input as { ConditionExpression?: string }).ConditionExpression?.startsWith(
          'attribute_not_exists',
        )
          ? 'idle'
          : 'append';
        try {
          const output = await next(args);
          writes.push(`${write} applied`);
          return output;
        } catch (error) {
          writes.push(`${write} refused`);
          throw error;
        }
      },
      { step: 'initialize', name: 'countPacerWrites' },
    );
    const limiter = () =>
      new DynamoDbRateLimiter(table.client, table.tableName, { perSecond: 100, now: () => now });
    const taken = async (reserving: Promise<number[]>) => {
      writes.length = 0;
      await reserving;
      return [...writes];
    };
    try {
      const lone = limiter();
      // A quiet fleet: one message, an idle pacer.
      expect(await taken(lone.reserve(1))).toEqual(['idle applied']);
      // A backlog: a fresh worker's batch finds the pacer busy.
      expect(await taken(limiter().reserve(10))).toEqual(['append applied']);
      // The lone worker found it idle last time: it tries that first, then appends.
      expect(await taken(lone.reserve(1))).toEqual(['idle refused', 'append applied']);
      // And now it knows the pacer busy.
      expect(await taken(lone.reserve(1))).toEqual(['append applied']);
      // A fresh worker with a lone slot on a busy pacer: two writes, never more.
      expect(await taken(limiter().reserve(1))).toEqual(['idle refused', 'append applied']);
    } finally {
      table.client.destroy();
    }
  });

  it('gives up a reservation whose signal is aborted, with a typed error', async () => {
    const { limiters, close } = await pacers(1, 100, () => 4_000_000);
    try {
      await expect(limiters[0]?.reserve(1, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
        RateLimiterUnavailableError,
      );
    } finally {
      close();
    }
  });

  it("holds back every worker after one worker's 429, until its Retry-After has passed", async () => {
    let now = 2_000_000;
    const { limiters, close } = await pacers(2, 100, () => now);
    const [first, second] = limiters;
    if (!first || !second) throw new Error('no pacers');
    try {
      await first.reserve(1);
      await first.coolDown(now + 1_000);
      now += 10;
      const [slot] = await second.reserve(1);
      expect(slot).toBe(2_001_000);
      // A shorter cool-down written later does not shorten it.
      await second.coolDown(now + 100);
      expect((await first.reserve(1))[0]).toBeCloseTo(2_001_010, 6);
    } finally {
      close();
    }
  });
});
