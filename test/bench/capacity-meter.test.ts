import {
  type ConsumedCapacity,
  DeleteTableCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CapacityMeter,
  itemBytes,
  singleWriteUnits,
  transactionalWriteUnits,
} from '../../bench/capacity-meter.js';
import { type Item, indexWrites, type TableDefinition } from '../../bench/index-write-units.js';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import { createDynamoDbClient } from '../../lib/shared/dynamodb-client.js';
import { createTableInput } from '../../lib/table/index.js';
import { createTestTable } from '../support/dynamodb.js';

/** The units a response itself carried (it carries them because the meter asked for TOTAL). */
function unitsOf(consumed: ConsumedCapacity | ConsumedCapacity[] | undefined): number {
  return (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).reduce(
    (sum, entry) => sum + (entry.CapacityUnits ?? 0),
    0,
  );
}

describe('transactional write units by AWS rules', () => {
  it('charges 2 per started KB per item: Puts by their size, the rest as one KB', () => {
    const name = 'x'.repeat(1500);
    expect(itemBytes({ pk: { S: 'P#1' }, n: { N: '12345' }, ok: { BOOL: true } })).toBe(
      2 + 3 + 1 + 4 + 2 + 1,
    );
    expect(itemBytes({ m: { M: { a: { S: 'bc' } } }, l: { L: [{ S: 'd' }, { NULL: true }] } })).toBe(
      1 + 3 + (1 + 2) + 1 + 3 + (1 + 1) + (1 + 1),
    );
    // Sets: their elements only; binary: its bytes; a negative number: its digits.
    expect(
      itemBytes({
        ss: { SS: ['ab', 'c'] },
        ns: { NS: ['10', '12345'] },
        b: { B: new Uint8Array(5) },
        neg: { N: '-1.5' },
      }),
    ).toBe(2 + (2 + 1) + 2 + (2 + 4) + 1 + 5 + 3 + 2);
    const units = transactionalWriteUnits({
      TransactItems: [
        { Put: { Item: { pk: { S: 'P#1' }, blob: { S: name } } } },
        { Put: { Item: { pk: { S: 'P#2' } } } },
        { Update: {} },
        { ConditionCheck: {} },
      ],
    });
    expect(units).toBe(2 * 2 + 2 + 2 + 2);
  });

  it('charges other writes 1 per started KB per item: Puts by their size, the rest as one KB', () => {
    const big = { pk: { S: 'P#1' }, blob: { S: 'x'.repeat(1500) } };
    expect(singleWriteUnits('PutItemCommand', { Item: big })).toBe(2);
    expect(singleWriteUnits('PutItemCommand', { Item: { pk: { S: 'P#2' } } })).toBe(1);
    expect(singleWriteUnits('UpdateItemCommand', { Key: { pk: { S: 'P#2' } } })).toBe(1);
    expect(
      singleWriteUnits('BatchWriteItemCommand', {
        RequestItems: {
          t: [{ PutRequest: { Item: big } }, { DeleteRequest: { Key: { pk: { S: 'P#3' } } } }],
        },
      }),
    ).toBe(3);
    expect(singleWriteUnits('GetItemCommand', { Key: { pk: { S: 'P#2' } } })).toBe(0);
  });
});

describe('bench CapacityMeter (SDK middleware) against DynamoDB Local', () => {
  let client: DynamoDBClient;
  let tableName: string;
  let meter: CapacityMeter;

  beforeAll(async () => {
    ({ client, tableName } = await createTestTable('capacity-meter'));
    meter = new CapacityMeter(client);
  });

  afterAll(async () => {
    await client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
    client.destroy();
  });

  const put = (pk: string) => ({
    Put: {
      TableName: tableName,
      Item: { pk: { S: pk }, sk: { S: 'ITEM' }, note: { S: 'metered' } },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  });

  it('counts a TransactWriteItems and a GetItem as one round trip each and sums the capacity they report', async () => {
    const before = meter.snapshot();
    const written = await client.send(new TransactWriteItemsCommand({ TransactItems: [put('meter#1')] }));
    const read = await client.send(
      new GetItemCommand({
        TableName: tableName,
        Key: { pk: { S: 'meter#1' }, sk: { S: 'ITEM' } },
        ConsistentRead: true,
      }),
    );
    const used = CapacityMeter.diff(before, meter.snapshot());

    // The meter asked for the capacity on the caller's behalf, and each response carried it.
    expect(read.Item?.note?.S).toBe('metered');
    const writeUnits = unitsOf(written.ConsumedCapacity);
    const readUnits = unitsOf(read.ConsumedCapacity);
    expect(writeUnits).toBeGreaterThan(0);
    expect(readUnits).toBeGreaterThan(0);

    expect(used.roundTrips).toBe(2);
    expect(used.byCommand).toEqual({ TransactWriteItemsCommand: 1, GetItemCommand: 1 });
    expect(used.unreported).toBe(0);
    expect(used.writeUnits).toBeCloseTo(writeUnits, 6);
    expect(used.transactWriteUnits).toBeCloseTo(writeUnits, 6);
    expect(used.readUnits).toBeCloseTo(readUnits, 6);
    // By AWS's rules: one item under 1 KB in a transaction is 2 units.
    expect(used.awsWriteUnits).toBe(2);
  });

  it('counts a cancelled transaction as a round trip that reported no capacity', async () => {
    const before = meter.snapshot();
    await expect(
      client.send(new TransactWriteItemsCommand({ TransactItems: [put('meter#1')] })),
    ).rejects.toBeInstanceOf(TransactionCanceledException);
    const used = CapacityMeter.diff(before, meter.snapshot());

    expect(used.roundTrips).toBe(1);
    expect(used.byCommand).toEqual({ TransactWriteItemsCommand: 1 });
    expect(used.unreported).toBe(1);
    expect(used.writeUnits).toBe(0);
  });

  it('counts only what the filter accepts, and keeps a ReturnConsumedCapacity the caller chose', async () => {
    const before = meter.snapshot();
    meter.filter = (commandName) => commandName === 'GetItemCommand';
    try {
      await client.send(new TransactWriteItemsCommand({ TransactItems: [put('meter#2')] }));
      const read = await client.send(
        new GetItemCommand({
          TableName: tableName,
          Key: { pk: { S: 'meter#2' }, sk: { S: 'ITEM' } },
          ReturnConsumedCapacity: 'NONE',
        }),
      );
      expect(read.ConsumedCapacity).toBeUndefined();
    } finally {
      meter.filter = undefined;
    }
    const used = CapacityMeter.diff(before, meter.snapshot());

    expect(used.roundTrips).toBe(1);
    expect(used.byCommand).toEqual({ GetItemCommand: 1 });
    expect(used.unreported).toBe(1);
    expect(used.writeUnits).toBe(0);
    expect(used.readUnits).toBe(0);
  });
});

/** One index of each projection kind, keyed like the project's table (pk/sk, gsiNpk/gsiNsk). */
const table: TableDefinition = {
  KeySchema: [{ AttributeName: 'pk' }, { AttributeName: 'sk' }],
  GlobalSecondaryIndexes: [
    {
      IndexName: 'all',
      KeySchema: [{ AttributeName: 'apk' }, { AttributeName: 'ask' }],
      Projection: { ProjectionType: 'ALL' },
    },
    {
      IndexName: 'keys',
      KeySchema: [{ AttributeName: 'kpk' }, { AttributeName: 'ksk' }],
      Projection: { ProjectionType: 'KEYS_ONLY' },
    },
    {
      IndexName: 'include',
      KeySchema: [{ AttributeName: 'ipk' }, { AttributeName: 'isk' }],
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['status'] },
    },
  ],
};
const s = (value: string) => ({ S: value });
const base: Item = { pk: s('P#1'), sk: s('P'), status: s('pending'), blob: s('x'.repeat(1500)) };
const inAll: Item = { apk: s('A#1'), ask: s('1') };
const inKeys: Item = { kpk: s('K#1'), ksk: s('1') };
const inInclude: Item = { ipk: s('I#1'), isk: s('1') };
const unitsByIndex = (before: Item | undefined, after: Item | undefined) =>
  Object.fromEntries(indexWrites(table, before, after).map((write) => [write.index, write.units]));
const kindsByIndex = (before: Item | undefined, after: Item | undefined) =>
  Object.fromEntries(indexWrites(table, before, after).map((write) => [write.index, write.kind]));

describe('index write units by AWS rules', () => {
  it('puts an item into every index whose key attributes it has, sized by what each index projects', () => {
    const item = { ...base, ...inAll, ...inKeys, ...inInclude };
    // ALL carries the 1.5 KB blob (2 units); KEYS_ONLY and INCLUDE (status only) stay under 1 KB (1 unit).
    expect(unitsByIndex(undefined, item)).toEqual({ all: 2, keys: 1, include: 1 });
    expect(kindsByIndex(undefined, item)).toEqual({ all: 'put', keys: 'put', include: 'put' });
  });

  it('costs nothing for an index whose key attributes the item has neither before nor after (sparse)', () => {
    expect(unitsByIndex(base, { ...base, status: s('submitting') })).toEqual({ all: 0, keys: 0, include: 0 });
  });

  it('charges one delete when an item leaves a sparse index, and one put when it enters it', () => {
    const queued = { ...base, ...inKeys };
    expect(kindsByIndex(queued, base).keys).toBe('delete');
    expect(unitsByIndex(queued, base).keys).toBe(1);
    expect(kindsByIndex(base, queued).keys).toBe('put');
    expect(unitsByIndex(base, queued).keys).toBe(1);
    // A deleted item leaves every index it was in.
    expect(unitsByIndex({ ...queued, ...inAll }, undefined)).toEqual({ all: 2, keys: 1, include: 0 });
  });

  it('charges a delete plus a put when the index key changes, whatever the projection', () => {
    const before = { ...base, ...inAll, ...inKeys, ...inInclude };
    const after = { ...before, ask: s('2'), ksk: s('2'), ipk: s('I#2') };
    expect(kindsByIndex(before, after)).toEqual({
      all: 'key-change',
      keys: 'key-change',
      include: 'key-change',
    });
    // ALL: a 2-unit entry deleted and a 2-unit entry put.
    expect(unitsByIndex(before, after)).toEqual({ all: 4, keys: 2, include: 2 });
  });

  it('charges one write for a projected attribute that changed under the same key, none for one not projected', () => {
    const before = { ...base, ...inAll, ...inKeys, ...inInclude };
    const statusChanged = { ...before, status: s('submitting') };
    expect(unitsByIndex(before, statusChanged)).toEqual({ all: 2, keys: 0, include: 1 });
    expect(kindsByIndex(before, statusChanged)).toEqual({ all: 'update', keys: 'none', include: 'update' });
    const blobChanged = { ...before, blob: s('y'.repeat(1500)) };
    expect(unitsByIndex(before, blobChanged)).toEqual({ all: 2, keys: 0, include: 0 });
  });

  it('charges nothing when a write leaves every projected attribute as it was (a rewrite that changes nothing)', () => {
    const item = { ...base, ...inAll, ...inKeys, ...inInclude, nested: { M: { a: s('1'), b: s('2') } } };
    const sameInOtherOrder = { ...item, nested: { M: { b: s('2'), a: s('1') } } };
    expect(unitsByIndex(item, sameInOtherOrder)).toEqual({ all: 0, keys: 0, include: 0 });
  });
});

describe('bench CapacityMeter pricing index writes against DynamoDB Local', () => {
  let client: DynamoDBClient;
  let images: DynamoDBClient;
  let tableName: string;
  let meter: CapacityMeter;

  beforeAll(async () => {
    let endpoint: string;
    ({ client, tableName, endpoint } = await createTestTable('capacity-meter-indexes'));
    images = createDynamoDbClient({ endpoint, ...localAwsConfig });
    meter = new CapacityMeter(client, { indexes: { table: createTableInput(tableName), images } });
  });

  afterAll(async () => {
    await client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
    client.destroy();
    images.destroy();
  });

  const key = { pk: s('PAYOUT#m1'), sk: s('PAYOUT') };
  const queued = (status: string, queue?: string) => ({
    ...key,
    status: s(status),
    gsi1pk: s(`PAYOUT#STATUS#${status}`),
    gsi1sk: s('2026-03-02T08:00:00.000Z#m1'),
    gsi2pk: s('PAYOUT#MONTH#2026-03'),
    gsi2sk: s('2026-03-02T08:00:00.000Z#m1'),
    ...(queue && { gsi3pk: s(`WORK#${queue}`), gsi3sk: s('2026-03-02T08:00:00.000Z#m1') }),
  });
  const measure = async (work: () => Promise<unknown>) => {
    const before = meter.snapshot();
    await work();
    return CapacityMeter.diff(before, meter.snapshot());
  };

  it("prices a transition from the table's own definition and the item it replaced", async () => {
    const created = await measure(() =>
      client.send(
        new TransactWriteItemsCommand({
          TransactItems: [{ Put: { TableName: tableName, Item: queued('pending', 'submit') } }],
        }),
      ),
    );
    expect(created.awsWriteUnits).toBe(2);
    expect(created.indexWriteUnitsByIndex).toEqual({ gsi1: 1, gsi2: 1, gsi3: 1 });
    expect(created.indexWriteUnits).toBe(3);

    // Status key changes (2), the month entry is rewritten because ALL projects the status (1), and the item
    // leaves the work queue (1).
    const decided = await measure(() =>
      client.send(new PutItemCommand({ TableName: tableName, Item: queued('succeeded') })),
    );
    expect(decided.indexWriteUnitsByIndex).toEqual({ gsi1: 2, gsi2: 1, gsi3: 1 });
    // A PutItem of an item under 1 KB is 1 unit in the table; DynamoDB Local's own figure counts the index writes
    // in, which would count them twice beside `indexWriteUnits`.
    expect(decided.awsWriteUnits).toBe(1);
    expect(decided.writeUnits).toBeGreaterThan(1);
  });

  it('reads the new image after an update, and prices nothing for a write that did not happen', async () => {
    const updated = await measure(() =>
      client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: 'SET gsi3pk = :pk, gsi3sk = :sk',
          ExpressionAttributeValues: { ':pk': s('WORK#watch'), ':sk': s('2026-03-03T08:00:00.000Z#m1') },
        }),
      ),
    );
    // Enters the sparse queue (1); the ALL-projected entries of gsi1 and gsi2 take the new attributes (1 each).
    expect(updated.indexWriteUnitsByIndex).toEqual({ gsi1: 1, gsi2: 1, gsi3: 1 });

    const refused = await measure(() =>
      client
        .send(
          new TransactWriteItemsCommand({
            TransactItems: [
              {
                Put: {
                  TableName: tableName,
                  Item: queued('failed'),
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
            ],
          }),
        )
        .catch(() => undefined),
    );
    expect(refused.indexWriteUnits).toBe(0);
    expect(refused.awsWriteUnits).toBe(0);
  });
});
