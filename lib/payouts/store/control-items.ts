import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DailyCapExceededError } from '../../controls/index.js';
import {
  type DocumentClient,
  PutCommand,
  type TransactWriteCommandInput,
} from '../../shared/document-client.js';
import { readItem } from '../../shared/table-reads.js';
import { keys } from '../../table/index.js';

/** A cap counter change that commits or fails together with a transition. */
export interface CapChange {
  readonly capKey: string;
  readonly day: string;
  /** Positive to reserve, negative to release. */
  readonly deltaKobo: number;
  /** Present when reserving: the write fails if the day's total would exceed it. */
  readonly limitKobo?: number;
}

/** One item of a TransactWriteItems. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * The pause check every money claim commits with: it fails when the ops controls say payouts are paused.
 * Shared by every writer that sends money (payouts, refunds), so a pause stops all of them at once.
 */
export function pauseCheckItem(tableName: string): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName,
      Key: keys.controls(),
      ConditionExpression: 'attribute_not_exists(pk) OR paused = :false',
      ExpressionAttributeValues: { ':false': false },
    },
  };
}

/**
 * A day's cap counter is up to this many items (shards), so that no single item takes the write of every
 * claim: one item serialises its writes (about 1,000 WCU/s, and a transaction touching it while another does is
 * cancelled with TransactionConflict), and every sending container claims on the same wallet's day. Each shard
 * may hold at most its share of the limit (`capShareKobo`), and the shares sum to the limit: the shards' totals
 * never sum above it, so the cap stays exact. A claim reserves on its own shard (`capHomeShard`); when that
 * shard's share has no room, it takes the amount from the shards that have room, in one transaction
 * (`reserveOnCapShards`). docs/controls.md, "Daily cap".
 */
export const MAX_CAP_SHARDS = 32;

/**
 * How many shards a new day's counter is split into: `DAILY_CAP_SHARDS` (1 to 32), 1 by default: one item, as
 * before sharding. A day keeps the count its first claim pinned (`capShardsOfDay`), so a count changed mid-day
 * (a deploy, containers of both counts at once) takes effect the next Lagos day and never splits one day's usage
 * over two sets of shares (docs/controls.md, "Daily cap").
 */
let capShards = shardCountOf(process.env.DAILY_CAP_SHARDS);

/** Each day's pinned count, per table, once pinned or read: a pin never changes, so this process learns it once. */
const pinnedCounts = new Map<string, number>();

function shardCountOf(text: string | undefined): number {
  if (text === undefined || text.trim() === '') return 1;
  const count = Number(text);
  if (!Number.isInteger(count) || count < 1 || count > MAX_CAP_SHARDS) {
    throw new Error(`DAILY_CAP_SHARDS must be a whole number from 1 to ${MAX_CAP_SHARDS}, not ${text}`);
  }
  return count;
}

/** The shard count configured for new days (`DAILY_CAP_SHARDS`). */
export function capShardCount(): number {
  return capShards;
}

/**
 * Sets the shard count of this process as a container started with it would have it, the days it pinned forgotten:
 * for the simulation and tests, which compare the counts (and containers of two counts) in one process.
 */
export function useCapShards(count: number): void {
  capShards = shardCountOf(String(count));
  pinnedCounts.clear();
}

/**
 * The shard count of `day`'s counters: the count its first claim pinned, in an item of its own written once, so
 * every container claims, releases and sums that day on the same shards whatever `DAILY_CAP_SHARDS` it was started
 * with. A container's first claim of a day pins (or confirms) its own count in the claim's own transaction
 * (`reserveOnCapShards`, no extra round trip); this lookup is for the paths that must know it first: one write
 * per container and day (a refused pin hands back the pinned count), cached, never on a claim's transaction.
 */
export async function capShardsOfDay(doc: DocumentClient, tableName: string, day: string): Promise<number> {
  const known = pinnedCapShards(tableName, day);
  if (known !== undefined) return known;
  const mine = capShardCount();
  let shards: number;
  try {
    // One round trip either way: the day's first claim pins its count; any later one is refused and handed the
    // pin it lost to (ReturnValuesOnConditionCheckFailure), which every container then keeps.
    await doc.send(
      new PutCommand({
        TableName: tableName,
        Item: pinOf(day, mine),
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    shards = mine;
  } catch (error) {
    const pinned = pinnedShardsOf(error);
    if (pinned === undefined) throw error;
    shards = pinned;
  }
  rememberCapShards(tableName, day, shards);
  return shards;
}

/** The count this process knows `day` was pinned to, if it has claimed or looked that day up. */
function pinnedCapShards(tableName: string, day: string): number | undefined {
  return pinnedCounts.get(`${tableName}\u0000${day}`);
}

function rememberCapShards(tableName: string, day: string, shards: number): void {
  pinnedCounts.set(`${tableName}\u0000${day}`, shards);
}

/**
 * The pin a container's first claim of a day carries in its transaction: written when the day has none, kept when
 * it holds `shards`, refused (the claim with it, as a cap refusal) when the day was pinned to another count.
 */
function pinItem(tableName: string, day: string, shards: number): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: pinOf(day, shards),
      ConditionExpression: 'attribute_not_exists(pk) OR shards = :n',
      ExpressionAttributeValues: { ':n': shards },
    },
  };
}

const pinOf = (day: string, shards: number) => ({
  ...keys.dailyCapShardsPin(day),
  entity: 'dailyCapShards',
  shards,
});

/** The count a refused pin carries back (the item already written), or undefined for any other failure. */
function pinnedShardsOf(error: unknown): number | undefined {
  if (!(error instanceof ConditionalCheckFailedException)) return undefined;
  const shards = error.Item?.shards?.N;
  return shards === undefined ? undefined : shardCountOf(shards);
}

/**
 * A share is never smaller than this (₦100,000): a cap too small for that many shards has fewer (a cap under
 * twice this is one item, as before sharding), so a usual claim fits its shard whole and a batch of claims
 * commits as one update. dev: ₦5,000,000 a day in 32 shards of ₦156,250 (a payout above that, up to the
 * ₦500,000 maximum, is taken from several shards); prod: ₦50,000,000 in 32 of ₦1,562,500. With a transaction
 * holding an item ~10 ms, 32 shards keep each under a third busy at R = 1,000 claims/s (bench/cap-fleet-simulation.ts).
 */
export const CAP_SHARE_FLOOR_KOBO = 10_000_000;

/** How many of a day's `shards` hold a share of `limitKobo`; the others hold none (only releases land there). */
export function capShardsFor(limitKobo: number, shards: number): number {
  return Math.max(1, Math.min(shards, Math.floor(limitKobo / CAP_SHARE_FLOOR_KOBO)));
}

/**
 * FNV-1a of an id with murmur3's finaliser: where its claims and releases go first. The finaliser matters: ids
 * made in one millisecond (ULIDs) differ in a character or two, and FNV's low bits alone spread those badly.
 */
function hashOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < id.length; index++) {
    hash ^= id.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/**
 * The shard a change of `id`'s goes to first: a reservation among the shards holding a share of its limit, a
 * release (which knows no limit) among all of them. A release may land on any shard: its total goes down (below
 * zero, on a shard holding no share), the sum stays the day's exact total, and the room it frees is found by the
 * next claim that reads the shards.
 */
export function capHomeShard(id: string, cap: CapChange, shards: number): number {
  const among = cap.limitKobo === undefined ? shards : capShardsFor(cap.limitKobo, shards);
  return hashOf(id) % among;
}

/** The most shard `shard` of a day's `shards` may hold of its `limitKobo`: the shares sum to the limit exactly. */
export function capShareKobo(limitKobo: number, shard: number, shards: number): number {
  const holding = capShardsFor(limitKobo, shards);
  if (shard >= holding) return 0;
  return Math.floor(limitKobo / holding) + (shard < limitKobo % holding ? 1 : 0);
}

/**
 * The cap counter's update for `reservations` claims together (a release counts none), on `shard`. Reserving
 * fails when the shard's total would exceed its share of `limitKobo`. A release may land on any shard (its total
 * goes down, even below zero): the sum stays the day's exact total, and each shard's share still bounds it.
 */
export function capUpdateItem(
  tableName: string,
  cap: CapChange,
  reservations = 1,
  shard = 0,
  shards = 1,
): TransactItem {
  const reserving = cap.limitKobo !== undefined;
  const share = reserving ? capShareKobo(cap.limitKobo ?? 0, shard, shards) : 0;
  // A counter not written yet holds 0: it passes only when the amount fits the share at all.
  const condition =
    cap.deltaKobo <= share
      ? 'attribute_not_exists(totalKobo) OR totalKobo <= :headroom'
      : 'totalKobo <= :headroom';
  return {
    Update: {
      TableName: tableName,
      Key: keys.dailyCapShard(cap.capKey, cap.day, shard),
      UpdateExpression: 'ADD totalKobo :delta, reservations :one SET entity = :entity',
      ...(reserving && { ConditionExpression: condition }),
      ExpressionAttributeValues: {
        ':delta': cap.deltaKobo,
        ':one': reserving ? reservations : 0,
        ':entity': 'dailyCap',
        ...(reserving && { ':headroom': share - cap.deltaKobo }),
      },
    },
  };
}

/** Each of the day's shards' total, read consistently (one round trip: the reads go out together). */
export async function capShardTotals(
  doc: DocumentClient,
  tableName: string,
  capKey: string,
  day: string,
): Promise<number[]> {
  const shards = await capShardsOfDay(doc, tableName, day);
  return Promise.all(
    Array.from({ length: shards }, async (_, shard) => {
      const item = await readItem(doc, tableName, keys.dailyCapShard(capKey, day, shard));
      return typeof item?.totalKobo === 'number' ? item.totalKobo : 0;
    }),
  );
}

/** One shard's part of a reservation. */
export interface CapShardPart {
  readonly shard: number;
  readonly deltaKobo: number;
}

/**
 * Where a reservation fits, given each shard's total: on the one shard with the most room when one can take it
 * whole, else split over the shards with room, most first; undefined when all their room together is short.
 */
export function planCapReservation(
  totals: readonly number[],
  limitKobo: number,
  deltaKobo: number,
): CapShardPart[] | undefined {
  const rooms = totals
    .map((total, shard) => ({ shard, room: capShareKobo(limitKobo, shard, totals.length) - total }))
    .filter(({ room }) => room > 0)
    .sort((a, b) => b.room - a.room);
  const widest = rooms[0];
  if (widest && widest.room >= deltaKobo) return [{ shard: widest.shard, deltaKobo }];
  const parts: CapShardPart[] = [];
  let left = deltaKobo;
  for (const { shard, room } of rooms) {
    if (left === 0) break;
    const part = Math.min(room, left);
    parts.push({ shard, deltaKobo: part });
    left -= part;
  }
  return left === 0 ? parts : undefined;
}

/** How many times a claim re-reads the shards and tries again after its plan lost a race for the room it saw. */
const MAX_CAP_PLANS = 8;

/**
 * Commits a claim's transaction with its cap change on the shards: first all on `homeShard`; when that shard's
 * share has no room (`commit` throws DailyCapExceededError), the shards are read and the claim committed again
 * with the amount where the room is (`planCapReservation`). It is refused only when the shards' room together,
 * read after the failure, is short of the amount, or after `MAX_CAP_PLANS` plans each lost to concurrent claims
 * taking the room first (near the cap, under contention: the bounded unfairness docs/controls.md describes).
 * A release goes to the home shard alone. The home shard is `homeId`'s among the day's pinned shards
 * (`capShardsOfDay`). `commit` gets the cap items to add to its transaction.
 */
export async function reserveOnCapShards<T>(options: {
  readonly doc: DocumentClient;
  readonly tableName: string;
  readonly cap: CapChange;
  /** Whose change this is (a payout's, a refund's, a claim item's id): where it goes first. */
  readonly homeId: string;
  readonly reservations?: number;
  readonly commit: (capItems: readonly TransactItem[]) => Promise<T>;
}): Promise<T> {
  const { doc, tableName, cap, homeId, reservations = 1, commit } = options;
  const itemsFor = (parts: readonly CapShardPart[], shards: number) =>
    parts.map((part, index) =>
      capUpdateItem(
        tableName,
        { ...cap, deltaKobo: part.deltaKobo },
        index === 0 ? reservations : 0,
        part.shard,
        shards,
      ),
    );
  const onHomeShard = (shards: number) =>
    itemsFor([{ shard: capHomeShard(homeId, cap, shards), deltaKobo: cap.deltaKobo }], shards);
  if (cap.limitKobo === undefined || cap.deltaKobo <= 0)
    return commit(onHomeShard(await capShardsOfDay(doc, tableName, cap.day)));
  // The day's first claim of this container assumes its own count and pins it in the same transaction: the
  // claim is the pin's round trip. A refusal may then be the pin's (another count holds the day): the day's
  // count is looked up, and the claim made again on it.
  const known = pinnedCapShards(tableName, cap.day);
  let shards = known ?? capShardCount();
  let refused: DailyCapExceededError | undefined;
  try {
    const pinning = known === undefined ? [pinItem(tableName, cap.day, shards)] : [];
    const committed = await commit([...onHomeShard(shards), ...pinning]);
    if (known === undefined) rememberCapShards(tableName, cap.day, shards);
    return committed;
  } catch (error) {
    if (!(error instanceof DailyCapExceededError)) throw error;
    refused = error;
  }
  if (known === undefined) {
    const pinned = await capShardsOfDay(doc, tableName, cap.day);
    if (pinned !== shards) {
      shards = pinned;
      try {
        return await commit(onHomeShard(shards));
      } catch (error) {
        if (!(error instanceof DailyCapExceededError)) throw error;
        refused = error;
      }
    }
  }
  for (let plan = 0; plan < MAX_CAP_PLANS; plan++) {
    const totals = await capShardTotals(doc, tableName, cap.capKey, cap.day);
    const parts = planCapReservation(totals, cap.limitKobo, cap.deltaKobo);
    if (!parts) throw refused;
    try {
      return await commit(itemsFor(parts, shards));
    } catch (error) {
      if (!(error instanceof DailyCapExceededError)) throw error;
      refused = error;
    }
  }
  throw refused;
}
