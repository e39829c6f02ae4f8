import {
  type ConsumedCapacity,
  DeleteTableCommand,
  type DynamoDBClient,
  GetItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapacityMeter, itemBytes, transactionalWriteUnits } from '../../bench/capacity-meter.js';
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
