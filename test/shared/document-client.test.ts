import { GetItemCommand, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BatchWriteCommand,
  DocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '../../lib/shared/document-client.js';
import { createTestTable } from '../support/dynamodb.js';

let table: Awaited<ReturnType<typeof createTestTable>>;
let doc: DocumentClient;

beforeAll(async () => {
  table = await createTestTable('document');
  doc = DocumentClient.from(table.client);
});
afterAll(() => table.client.destroy());

const key = (pk: string, sk = 'ITEM') => ({ pk, sk });
const get = async (pk: string, sk = 'ITEM') =>
  (await doc.send(new GetCommand({ TableName: table.tableName, Key: key(pk, sk), ConsistentRead: true })))
    .Item;
/** The item as DynamoDB holds it, read without the document model. */
const raw = async (pk: string, sk = 'ITEM') =>
  (
    await table.client.send(
      new GetItemCommand({
        TableName: table.tableName,
        Key: { pk: { S: pk }, sk: { S: sk } },
        ConsistentRead: true,
      }),
    )
  ).Item;

describe('DocumentClient against DynamoDB Local', () => {
  it('writes plain values as DynamoDB types, leaves undefined out, and reads them back as written', async () => {
    const item = {
      ...key('DOC#types'),
      amountKobo: 1_250_000,
      name: 'Ada',
      paid: false,
      missing: undefined,
      nested: { list: [1, 'two', { three: 3 }], empty: null },
      tags: new Set(['a', 'b']),
    };
    await doc.send(new PutCommand({ TableName: table.tableName, Item: item }));

    expect(await raw('DOC#types')).toEqual({
      pk: { S: 'DOC#types' },
      sk: { S: 'ITEM' },
      amountKobo: { N: '1250000' },
      name: { S: 'Ada' },
      paid: { BOOL: false },
      nested: {
        M: { list: { L: [{ N: '1' }, { S: 'two' }, { M: { three: { N: '3' } } }] }, empty: { NULL: true } },
      },
      tags: { SS: ['a', 'b'] },
    });
    const { missing: _left, ...stored } = item;
    expect(await get('DOC#types')).toEqual(stored);
  });

  it('marshals a condition’s values and unmarshals what an update returns', async () => {
    await doc.send(new PutCommand({ TableName: table.tableName, Item: { ...key('DOC#update'), count: 1 } }));
    const updated = await doc.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: key('DOC#update'),
        UpdateExpression: 'SET #count = #count + :one, note = :note',
        ConditionExpression: '#count = :expected',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':one': 1, ':expected': 1, ':note': { by: 'ops' } },
        ReturnValues: 'ALL_NEW',
      }),
    );
    expect(updated.Attributes).toEqual({ ...key('DOC#update'), count: 2, note: { by: 'ops' } });

    const refused = doc.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...key('DOC#update'), count: 0 },
        ConditionExpression: '#count = :expected',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':expected': 1 },
      }),
    );
    await expect(refused).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect((await get('DOC#update'))?.count).toBe(2);
  });

  it('pages a query with the key it returned', async () => {
    await doc.send(
      new BatchWriteCommand({
        RequestItems: {
          [table.tableName]: ['1', '2', '3'].map((sk) => ({
            PutRequest: { Item: { ...key('DOC#query', sk), n: Number(sk) } },
          })),
        },
      }),
    );
    const query = (start?: Record<string, unknown>) =>
      doc.send(
        new QueryCommand({
          TableName: table.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': 'DOC#query' },
          Limit: 2,
          ConsistentRead: true,
          ...(start && { ExclusiveStartKey: start }),
        }),
      );
    const first = await query();
    expect(first.Items?.map((item) => item.n)).toEqual([1, 2]);
    expect(first.LastEvaluatedKey).toEqual(key('DOC#query', '2'));
    const second = await query(first.LastEvaluatedKey);
    expect(second.Items?.map((item) => item.n)).toEqual([3]);
    expect(second.LastEvaluatedKey).toBeUndefined();

    const emptied = await doc.send(
      new BatchWriteCommand({
        RequestItems: {
          [table.tableName]: ['1', '2', '3'].map((sk) => ({ DeleteRequest: { Key: key('DOC#query', sk) } })),
        },
      }),
    );
    expect(emptied.UnprocessedItems ?? {}).toEqual({});
    expect((await query()).Items).toEqual([]);
  });

  it('commits a transaction of every kind of action, or none of it when a condition fails', async () => {
    await doc.send(
      new PutCommand({ TableName: table.tableName, Item: { ...key('DOC#tx-check'), open: true } }),
    );
    await doc.send(new PutCommand({ TableName: table.tableName, Item: { ...key('DOC#tx-gone'), n: 1 } }));
    await doc.send(new PutCommand({ TableName: table.tableName, Item: { ...key('DOC#tx-count'), n: 1 } }));
    const transaction = (open: boolean) =>
      new TransactWriteCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: table.tableName,
              Key: key('DOC#tx-check'),
              ConditionExpression: '#open = :open',
              ExpressionAttributeNames: { '#open': 'open' },
              ExpressionAttributeValues: { ':open': open },
            },
          },
          { Put: { TableName: table.tableName, Item: { ...key('DOC#tx-new'), at: '2026-11-26' } } },
          { Delete: { TableName: table.tableName, Key: key('DOC#tx-gone') } },
          {
            Update: {
              TableName: table.tableName,
              Key: key('DOC#tx-count'),
              UpdateExpression: 'SET n = n + :one',
              ExpressionAttributeValues: { ':one': 1 },
            },
          },
        ],
      });

    const refused = await doc.send(transaction(false)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TransactionCanceledException);
    expect(
      (refused as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code),
    ).toEqual(['ConditionalCheckFailed', 'None', 'None', 'None']);
    expect(await get('DOC#tx-new')).toBeUndefined();
    expect(await get('DOC#tx-gone')).toEqual({ ...key('DOC#tx-gone'), n: 1 });

    await doc.send(transaction(true));
    expect(await get('DOC#tx-new')).toEqual({ ...key('DOC#tx-new'), at: '2026-11-26' });
    expect(await get('DOC#tx-gone')).toBeUndefined();
    expect(await get('DOC#tx-count')).toEqual({ ...key('DOC#tx-count'), n: 2 });
  });

  it('hands a send’s abort signal to the client', async () => {
    const aborted = AbortSignal.abort(new Error('caller gave up'));
    await expect(
      doc.send(new GetCommand({ TableName: table.tableName, Key: key('DOC#types') }), {
        abortSignal: aborted,
      }),
    ).rejects.toThrow();
  });
});
