import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DailyCapExceededError, systemPrincipal } from '../../lib/controls/index.js';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import { buildTransition } from '../../lib/payouts/engine/context.js';
import { type Payout, PayoutStatus } from '../../lib/payouts/model.js';
import {
  capShardCount,
  capShardsFor,
  capShareKobo,
  MAX_CAP_SHARDS,
  useCapShards,
} from '../../lib/payouts/store/control-items.js';
import { DynamoDbPayoutStore } from '../../lib/payouts/store/dynamodb-payout-store.js';
import { forEachAtOnce } from '../../lib/shared/at-once.js';
import { DocumentClient, GetCommand } from '../../lib/shared/document-client.js';
import { createDynamoDbClient } from '../../lib/shared/dynamodb-client.js';
import { calendarDayIn } from '../../lib/shared/wall-clock.js';
import { keys } from '../../lib/table/index.js';
import { bankTransfer, command, type EngineHarness, startEngineHarness } from '../support/engine-harness.js';

/**
 * The daily cap as shards (lib/payouts/store/control-items.ts) against DynamoDB Local, claimed at once from
 * several stores over their own clients (as containers do): the total never passes the cap, and the room left
 * when claims are refused is less than one claim, even when that room is spread over shards none of which can
 * take a claim whole.
 */
const DAILY_CAP = 320_000_000; // 32 shards of 10,000,000
const CLAIM = 3_000_000; // 3 fit a shard (9,000,000): 96 whole, 10 more only from the 1,000,000 left on each
const CLAIMS = 130;
const STORES = 4;
let h: EngineHarness;
const actor = systemPrincipal('test');

beforeAll(async () => {
  // Sharding is off by default (DAILY_CAP_SHARDS=1): these tests prove the 32-shard counter.
  useCapShards(MAX_CAP_SHARDS);
  h = await startEngineHarness({
    dailyCapKobo: DAILY_CAP,
    maxInstructionKobo: DAILY_CAP,
    approvalThresholdKobo: DAILY_CAP,
  });
});
afterAll(async () => {
  useCapShards(1);
  await h.close();
});

/** Creates `count` payouts eight at a time (what is measured here is the claims, not the creates). */
async function createdAtOnce(
  count: number,
  commandOf: (index: number) => ReturnType<typeof command>,
): Promise<Payout[]> {
  const payouts: Payout[] = new Array(count);
  await forEachAtOnce(
    Array.from({ length: count }, (_, index) => index),
    8,
    async (index) => {
      payouts[index] = (await h.engine.create(commandOf(index))).payout;
    },
  );
  return payouts;
}

const claimOf = (payout: Payout, day: string) =>
  buildTransition(
    payout,
    {
      to: PayoutStatus.Submitting,
      actor,
      reason: 'test claim',
      changes: { capDay: day, submissionCount: payout.submissionCount + 1 },
      cap: { capKey: payout.capKey, day, deltaKobo: payout.amountKobo, limitKobo: DAILY_CAP },
    },
    h.clock.now(),
  );

describe('the daily cap split over shards', () => {
  it('never reserves above the cap when many containers claim near it at once, and leaves no claim-sized room', async () => {
    expect(capShardsFor(DAILY_CAP, MAX_CAP_SHARDS)).toBe(32);
    const payouts = await createdAtOnce(CLAIMS, (i) => command(bankTransfer(CLAIM), `shard-${i}`));
    const capKey = payouts[0]?.capKey ?? '';
    const day = calendarDayIn(h.engine.ctx.config.capTimeZone, h.clock.now());
    const clients = Array.from({ length: STORES }, () =>
      createDynamoDbClient({ endpoint: inject('dynamoDbEndpoint'), ...localAwsConfig }),
    );
    try {
      const stores = clients.map((client) => new DynamoDbPayoutStore(client, h.tableName));
      const results = await Promise.allSettled(
        payouts.map((payout, index) =>
          (stores[index % STORES] as DynamoDbPayoutStore).transition(claimOf(payout, day)),
        ),
      );
      const claimed = results.filter((result) => result.status === 'fulfilled').length;
      for (const result of results) {
        if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(DailyCapExceededError);
      }
      const usage = await h.store.getCapUsage(capKey, day);
      expect(usage).toBe(claimed * CLAIM);
      expect(usage).toBeLessThanOrEqual(DAILY_CAP);
      // Every claim that fits was taken: 106, the last 10 each from three shards' 1,000,000 left.
      expect(claimed).toBe(Math.floor(DAILY_CAP / CLAIM));
      expect(DAILY_CAP - usage).toBeLessThan(CLAIM);
      // No shard holds more than its share.
      const doc = DocumentClient.from(clients[0] as (typeof clients)[number]);
      for (let shard = 0; shard < MAX_CAP_SHARDS; shard++) {
        const { Item } = await doc.send(
          new GetCommand({
            TableName: h.tableName,
            Key: keys.dailyCapShard(capKey, day, shard),
            ConsistentRead: true,
          }),
        );
        expect(Number(Item?.totalKobo ?? 0)).toBeLessThanOrEqual(
          capShareKobo(DAILY_CAP, shard, MAX_CAP_SHARDS),
        );
      }
    } finally {
      for (const client of clients) client.destroy();
    }
  }, 120_000);

  it('spreads the claims of a busy day over the shards instead of one item', async () => {
    // Well under the cap: each claim lands on its own shard, so the writes are spread, none refused.
    const payouts: Payout[] = [];
    for (let i = 0; i < 16; i++) {
      payouts.push((await h.engine.create(command(bankTransfer(1_000), `spread-${i}`))).payout);
    }
    const day = '2099-01-01';
    const client = createDynamoDbClient({ endpoint: inject('dynamoDbEndpoint'), ...localAwsConfig });
    try {
      const store = new DynamoDbPayoutStore(client, h.tableName, { coalesceWrites: false });
      for (const payout of payouts) await store.transition(claimOf(payout, day));
      const doc = DocumentClient.from(client);
      const written: number[] = [];
      for (let shard = 0; shard < MAX_CAP_SHARDS; shard++) {
        const { Item } = await doc.send(
          new GetCommand({
            TableName: h.tableName,
            Key: keys.dailyCapShard(payouts[0]?.capKey ?? '', day, shard),
            ConsistentRead: true,
          }),
        );
        if (Item) written.push(shard);
      }
      expect(written.length).toBeGreaterThan(6);
      expect(await h.store.getCapUsage(payouts[0]?.capKey ?? '', day)).toBe(16_000);
    } finally {
      client.destroy();
    }
  });
});

describe('the shard count in force', () => {
  it('keeps one counter item by default, as before sharding, whatever the cap', () => {
    useCapShards(1);
    try {
      expect(capShardsFor(DAILY_CAP, capShardCount())).toBe(1);
    } finally {
      useCapShards(MAX_CAP_SHARDS);
    }
  });

  it('keeps a day on the count its first claim pinned when containers of another count start mid-day, so the cap is never over-spent', async () => {
    const BIG = 30_000_000;
    const payouts: Payout[] = [];
    for (let i = 0; i < 14; i++) {
      payouts.push((await h.engine.create(command(bankTransfer(BIG), `pinned-${i}`))).payout);
    }
    const capKey = payouts[0]?.capKey ?? '';
    const day = '2099-03-01';
    const client = createDynamoDbClient({ endpoint: inject('dynamoDbEndpoint'), ...localAwsConfig });
    try {
      // The day starts on containers of one shard: 10 claims take 300,000,000 of 320,000,000 on shard 0.
      useCapShards(1);
      const before = new DynamoDbPayoutStore(client, h.tableName, { coalesceWrites: false });
      for (const payout of payouts.slice(0, 10)) await before.transition(claimOf(payout, day));
      // A deploy mid-day: containers of 32 shards (each share 10,000,000) claim the same day. On their own
      // shares the next claims would find 31 empty shards of room.
      useCapShards(MAX_CAP_SHARDS);
      const after = new DynamoDbPayoutStore(client, h.tableName, { coalesceWrites: false });
      const results = await Promise.allSettled(
        payouts.slice(10, 12).map((p) => after.transition(claimOf(p, day))),
      );

      expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
      expect(await after.getCapUsage(capKey, day)).toBe(10 * BIG);
      const doc = DocumentClient.from(client);
      for (let shard = 1; shard < MAX_CAP_SHARDS; shard++) {
        const { Item } = await doc.send(
          new GetCommand({
            TableName: h.tableName,
            Key: keys.dailyCapShard(capKey, day, shard),
            ConsistentRead: true,
          }),
        );
        expect(Item).toBeUndefined();
      }

      // The next day is pinned to the new count at its first claim: spread over the shards.
      const nextDay = '2099-03-02';
      for (const payout of payouts.slice(12, 14)) await after.transition(claimOf(payout, nextDay));
      const homes: number[] = [];
      for (let shard = 0; shard < MAX_CAP_SHARDS; shard++) {
        const { Item } = await doc.send(
          new GetCommand({
            TableName: h.tableName,
            Key: keys.dailyCapShard(capKey, nextDay, shard),
            ConsistentRead: true,
          }),
        );
        if (Item) homes.push(shard);
      }
      expect(homes.length).toBeGreaterThan(1);
      expect(await after.getCapUsage(capKey, nextDay)).toBe(2 * BIG);
    } finally {
      useCapShards(MAX_CAP_SHARDS);
      client.destroy();
    }
  }, 60_000);
});
