/**
 * The single DynamoDB table that holds the project's state. Every access is a GetItem, a Query or a
 * conditional write; nothing scans. See docs/data-model.md for the access patterns.
 *
 * | item            | pk                              | sk                 | gsi1 (by status)                | gsi2 (by month)            | gsi3 (work queue, sparse)      |
 * |-----------------|---------------------------------|--------------------|---------------------------------|----------------------------|--------------------------------|
 * | payout          | PAYOUT#<id>                     | PAYOUT             | PAYOUT#STATUS#<status> / created | PAYOUT#MONTH#<yyyy-mm> / created | WORK#<queue> / <dueAt>#<id> (not in flight) |
 * | audit item      | PAYOUT#<id>                     | AUDIT#<sequence>   |                                 |                            |                                |
 * | idempotency key | IDEMPOTENCY#<origin>#<key>      | IDEMPOTENCY        |                                 |                            |                                |
 * | controls        | CONTROL                         | GLOBAL             |                                 |                            |                                |
 * | daily cap       | CAP#<capKey>#<yyyy-mm-dd>[#<shard>] | CAP            |                                 |                            |                                |
 */
export const TableKeys = { partitionKey: 'pk', sortKey: 'sk' } as const;

export const TableIndexes = {
  byStatus: { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  byMonth: { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  workQueue: { indexName: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
} as const;

/** Attribute DynamoDB's TTL deletes by (epoch seconds); set only on records meant to expire. */
export const TTL_ATTRIBUTE = 'expiresAt';

/**
 * Work queues of the gsi3 index: what the scheduled handlers pick up when it is due. A payout in flight
 * (`submitting`) is in none: entering a queue and leaving it would cost two index writes on every send, so the
 * reconciler finds ended leases through the status listing instead (engine/reconcile-payouts.ts, `endedLeases`).
 * Items stored before with `WORK#lease` keys are `submitting` too, found the same way; their next write drops them.
 */
export const WorkQueue = {
  /** `pending` payouts waiting to be submitted (fresh, after a pause, or after "unavailable"). */
  Submit: 'submit',
  /** `unknown` payouts due for another reconciliation look-up. */
  Reconcile: 'reconcile',
  /** `scheduled` payouts, by their scheduled time. */
  Due: 'due',
  /** Decided payouts whose earlier attempts are still watched for a late provider record. */
  Watch: 'watch',
} as const;
export type WorkQueue = (typeof WorkQueue)[keyof typeof WorkQueue];

export const keys = {
  payout: (id: string) => ({ pk: `PAYOUT#${id}`, sk: 'PAYOUT' }),
  audit: (payoutId: string, sequence: number) => ({
    pk: `PAYOUT#${payoutId}`,
    sk: `AUDIT#${String(sequence).padStart(6, '0')}`,
  }),
  idempotency: (origin: string, key: string) => ({ pk: `IDEMPOTENCY#${origin}#${key}`, sk: 'IDEMPOTENCY' }),
  controls: () => ({ pk: 'CONTROL', sk: 'GLOBAL' }),
  dailyCap: (capKey: string, day: string) => ({ pk: `CAP#${capKey}#${day}`, sk: 'CAP' }),
  /**
   * One shard of a day's cap counter (control-items.ts): shard 0 is the unsharded counter's item, the others a
   * partition key each, so no single item takes every claim's write.
   */
  dailyCapShard: (capKey: string, day: string, shard: number) =>
    shard === 0 ? keys.dailyCap(capKey, day) : { pk: `CAP#${capKey}#${day}#${shard}`, sk: 'CAP' },
  /** The shard count `day`'s cap counters were pinned to by the day's first claim (control-items.ts). */
  dailyCapShardsPin: (day: string) => ({ pk: `CAP#${day}`, sk: 'SHARDS' }),
  statusPartition: (status: string) => `PAYOUT#STATUS#${status}`,
  monthPartition: (month: string) => `PAYOUT#MONTH#${month}`,
  workPartition: (queue: string) => `WORK#${queue}`,
} as const;

/** The CreateTable definition used by tests and `npm start`; infra/ declares the same keys in CDK. */
export function createTableInput(tableName: string) {
  const attribute = (name: string) => ({ AttributeName: name, AttributeType: 'S' as const });
  const index = (spec: { indexName: string; partitionKey: string; sortKey: string }) => ({
    IndexName: spec.indexName,
    KeySchema: [
      { AttributeName: spec.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: spec.sortKey, KeyType: 'RANGE' as const },
    ],
    Projection: { ProjectionType: 'ALL' as const },
  });
  const indexes = Object.values(TableIndexes);
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: [
      attribute(TableKeys.partitionKey),
      attribute(TableKeys.sortKey),
      ...indexes.flatMap((spec) => [attribute(spec.partitionKey), attribute(spec.sortKey)]),
    ],
    KeySchema: [
      { AttributeName: TableKeys.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: TableKeys.sortKey, KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: indexes.map(index),
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' as const },
  };
}
