import {
  type AttributeValue,
  BatchGetItemCommand,
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteTableCommand,
  QueryCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import { createAndSubmit } from '../lib/payouts/engine/create-and-submit.js';
import { endedLeases } from '../lib/payouts/engine/reconcile-payouts.js';
import { PayoutStatus } from '../lib/payouts/model.js';
import { PayoutAuditTrail } from '../lib/payouts/store/audit-trail.js';
import { PayoutListing } from '../lib/payouts/store/payout-listing.js';
import { ManualClock } from '../lib/shared/clock.js';
import { createTableInput, keys, TableIndexes, WorkQueue } from '../lib/table/index.js';
import { CapacityMeter } from './capacity-meter.js';
import {
  type BenchResult,
  bankTransfer,
  createCommand,
  type EngineRig,
  fixed,
  type Row,
  startEngineRig,
  withProjection,
} from './support.js';

const START = '2026-03-02T08:00:00.000Z';
const SUCCEEDED = 30;
const PENDING = 30;
const UNKNOWN = 5;

/**
 * DynamoDB round trips and read units of the read paths the data model serves: the list routes (all, by
 * status, with a type filter, a second page), a payout with its audit trail and a page of the trail, and the queue reads of the sweeper and the reconciler, over a
 * table holding succeeded, pending and unknown payouts. Index projections decide what these cost, so a change
 * of the data model shows here as well as in the write units.
 */
export async function benchReadPaths(endpoint: string): Promise<BenchResult> {
  const clock = new ManualClock(START);
  const rig = await startEngineRig(endpoint, { prefix: 'read-paths', clock });
  const rows: Row[] = [];
  const listing = new PayoutListing(rig.dynamoDb, rig.tableName);
  try {
    for (let i = 0; i < SUCCEEDED; i++) {
      const { payout } = await rig.engine.create(createCommand(bankTransfer(), `read-s-${i}`));
      await rig.engine.submit(payout.id);
    }
    for (let i = 0; i < UNKNOWN; i++) {
      const { payout } = await rig.engine.create(createCommand(bankTransfer(), `read-u-${i}`));
      await rig.sandbox.injectFault({ path: '/settlement/instant/payout', fault: 'timeout-after-commit' });
      await rig.engine.submit(payout.id);
    }
    for (let i = 0; i < PENDING; i++) await rig.engine.create(createCommand(bankTransfer(), `read-p-${i}`));
    clock.advance(10 * 60_000);
    const now = clock.now().toISOString();

    // `to` as the API passes it when the caller gives none would be the wall clock; the bench's clock is fixed.
    const first = await listing.list({ limit: 20, to: now });
    rows.push(await measure(rig, 'list all, first page (20)', () => listing.list({ limit: 20, to: now })));
    rows.push(
      await measure(rig, 'list all, second page (20)', () =>
        listing.list({ limit: 20, to: now, ...(first.nextCursor && { cursor: first.nextCursor }) }),
      ),
    );
    rows.push(
      await measure(rig, 'list by status succeeded (20)', () =>
        listing.list({ status: PayoutStatus.Succeeded, limit: 20 }),
      ),
    );
    rows.push(
      await measure(rig, 'list by status + type filter (20)', () =>
        listing.list({ status: PayoutStatus.Succeeded, type: 'bank_transfer', limit: 20 }),
      ),
    );
    const trail = new PayoutAuditTrail(rig.dynamoDb, rig.tableName);
    const [decided] = (await listing.list({ status: PayoutStatus.Succeeded, limit: 1 })).items.map(
      ({ id }) => id,
    );
    if (!decided) throw new Error('read-paths: no succeeded payout to read');
    const { payout: paidAtOnce } = await createAndSubmit(
      rig.engine.ctx,
      createCommand(bankTransfer(), 'read-now'),
    );
    rows.push(
      await measure(rig, 'a payout paid at once (POST /payouts) with its audit trail', () =>
        trail.whole(paidAtOnce.id),
      ),
    );
    rows.push(
      await measure(rig, 'a payout paid in two steps with its audit trail (GET /payouts/{id})', () =>
        trail.whole(decided),
      ),
    );
    rows.push(
      await measure(rig, 'audit trail, first page (GET /payouts/{id}/audit, 50)', () =>
        trail.page(decided, { limit: 50 }),
      ),
    );
    rows.push(
      await measure(rig, 'sweeper: due submit queue (limit 50)', () =>
        rig.store.due(WorkQueue.Submit, now, 50),
      ),
    );
    rows.push(
      await measure(rig, 'reconciler: ended leases (status listing) + reconcile + watch, 2 counts', () =>
        Promise.all([
          endedLeases(rig.engine.ctx, now, 50),
          rig.store.due(WorkQueue.Reconcile, now, 50),
          rig.store.due(WorkQueue.Watch, now, 50),
          rig.store.countByStatus(PayoutStatus.NeedsReview, 1000),
          rig.store.countByStatus(PayoutStatus.Unknown, 1000),
        ]),
      ),
    );
    rows.push(...(await keysOnlyWhatIf(rig, now)));
  } finally {
    await rig.close();
  }
  return {
    name: 'read-paths',
    title: `Read paths (${SUCCEEDED} succeeded, ${PENDING} pending, ${UNKNOWN} unknown payouts in the table)`,
    rows,
    notes: [
      'Per call: DynamoDB round trips and the read units DynamoDB Local reports (ReturnConsumedCapacity TOTAL), items returned.',
      'what-if KEYS_ONLY: the same items copied into a table whose three GSIs project KEYS_ONLY, read as such a design would have to: the Query, then a BatchGetItem (eventually consistent) of the items it found.',
      'Index queries read eventually consistent; a query reads 0.5 RCU per started 4 KB of the index entries it reads, so smaller projections cost fewer units and an item fetched after a keys-only query costs a read of its own.',
    ],
  };
}

async function measure(rig: EngineRig, step: string, read: () => Promise<unknown>): Promise<Row> {
  const before = rig.meter.snapshot();
  const result = await read();
  const used = CapacityMeter.diff(before, rig.meter.snapshot());
  return {
    step,
    'ddb round trips': used.roundTrips,
    RCU: fixed(used.readUnits, 2),
    items: itemCount(result),
    operations: Object.entries(used.byCommand)
      .map(([name, count]) => `${name.replace(/Command$/, '')} ${count}`)
      .join(', '),
  };
}

/** Items a read returned: a page's items, a queue's payouts, a count; summed over reads made together. */
function itemCount(result: unknown): number {
  if (Array.isArray(result) && result.every((part) => Array.isArray(part) || typeof part === 'number'))
    return result.reduce((sum: number, part) => sum + itemCount(part), 0);
  if (Array.isArray(result)) return result.length;
  if (result && typeof result === 'object' && 'items' in result && Array.isArray(result.items))
    return result.items.length;
  return typeof result === 'number' ? result : 0;
}

type Item = Record<string, AttributeValue>;

/**
 * The reads a KEYS_ONLY design would make, measured: every item of the rig's table is copied into a table whose
 * GSIs project KEYS_ONLY, then each listing or queue read is its Query plus a BatchGetItem of what it found.
 */
async function keysOnlyWhatIf(rig: EngineRig, now: string): Promise<Row[]> {
  const client = rig.dynamoDb;
  const tableName = `${rig.tableName}-keys-only`;
  await client.send(new CreateTableCommand(withProjection(createTableInput(tableName), 'KEYS_ONLY')));
  try {
    let startKey: Item | undefined;
    do {
      const page = await client.send(
        new ScanCommand({ TableName: rig.tableName, ExclusiveStartKey: startKey }),
      );
      const items = page.Items ?? [];
      for (let i = 0; i < items.length; i += 25) {
        const chunk = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
        await client.send(new BatchWriteItemCommand({ RequestItems: { [tableName]: chunk } }));
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);

    const queryThenFetch = async (
      index: { indexName: string; partitionKey: string; sortKey: string },
      partition: string,
      limit: number,
      upTo?: string,
    ) => {
      const page = await client.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: index.indexName,
          KeyConditionExpression: upTo ? '#pk = :pk AND #sk <= :upTo' : '#pk = :pk',
          ExpressionAttributeNames: { '#pk': index.partitionKey, ...(upTo && { '#sk': index.sortKey }) },
          ExpressionAttributeValues: { ':pk': { S: partition }, ...(upTo && { ':upTo': { S: upTo } }) },
          ScanIndexForward: upTo !== undefined,
          Limit: limit,
        }),
      );
      const found = (page.Items ?? []).map((item) => ({
        pk: item.pk as AttributeValue,
        sk: item.sk as AttributeValue,
      }));
      if (found.length === 0) return [];
      const fetched = await client.send(
        new BatchGetItemCommand({ RequestItems: { [tableName]: { Keys: found } } }),
      );
      return fetched.Responses?.[tableName] ?? [];
    };
    const { byStatus, byMonth, workQueue } = TableIndexes;
    return [
      await measure(rig, 'what-if KEYS_ONLY: list all, first page (20)', () =>
        queryThenFetch(byMonth, keys.monthPartition(now.slice(0, 7)), 20),
      ),
      await measure(rig, 'what-if KEYS_ONLY: list by status succeeded (20)', () =>
        queryThenFetch(byStatus, keys.statusPartition(PayoutStatus.Succeeded), 20),
      ),
      await measure(rig, 'what-if KEYS_ONLY: sweeper due submit queue (limit 50)', () =>
        queryThenFetch(workQueue, keys.workPartition(WorkQueue.Submit), 50, `${now}#\uffff`),
      ),
    ];
  } finally {
    await client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
  }
}
