import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '../../lib/local/create-table.js';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import { DynamoDbPayoutStore } from '../../lib/payouts/store/dynamodb-payout-store.js';
import { createDynamoDbClient } from '../../lib/shared/dynamodb-client.js';
import { MAX_CONFLICT_RETRIES } from '../../lib/shared/transaction-conflicts.js';

/**
 * In AWS a PutItem, UpdateItem or DeleteItem on an item that a transaction in flight holds is refused with
 * `TransactionConflictException`. DynamoDB Local serialises transactions and cannot produce it on demand, so these
 * tests inject it: the first `conflicts` PutItem requests are answered, in place of DynamoDB Local, with the HTTP
 * answer DynamoDB gives (400, its JSON error body), which the SDK's own deserializer turns into the exception and its
 * own retry strategy judges. The middleware sits next to the HTTP handler, inside the SDK's retry loop and the
 * client's conflict retry, so it counts every request sent; every other request reaches DynamoDB Local.
 */
function clientMeetingConflicts(
  conflicts: number,
  { deadlineMs, answerAfterMs = 0 }: { deadlineMs?: number; answerAfterMs?: number } = {},
): { client: DynamoDBClient; putsSent: () => number } {
  const client = createDynamoDbClient(
    { endpoint: inject('dynamoDbEndpoint'), ...localAwsConfig },
    deadlineMs,
  );
  let putsSent = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'PutItemCommand') return next(args);
      putsSent++;
      if (putsSent > conflicts) return next(args);
      await new Promise((resolve) => setTimeout(resolve, answerAfterMs));
      return {
        response: {
          statusCode: 400,
          headers: {
            'content-type': 'application/x-amz-json-1.0',
            'x-amzn-requestid': `injected-conflict-${putsSent}`,
          },
          body: Readable.from([
            Buffer.from(
              JSON.stringify({
                __type: 'com.amazonaws.dynamodb.v20120810#TransactionConflictException',
                message: 'Transaction is ongoing for the item',
              }),
            ),
          ]),
        },
        output: undefined,
      };
    },
    // Added after the client's own `requestSent` (deserialize, low): the innermost, where the request is sent.
    { step: 'deserialize', priority: 'low', name: 'injectTransactionConflict' },
  );
  return { client, putsSent: () => putsSent };
}

const tableName = `conflict-retry-${randomUUID()}`;
let reader: DynamoDBClient;
beforeAll(async () => {
  reader = createDynamoDbClient({ endpoint: inject('dynamoDbEndpoint'), ...localAwsConfig });
  await ensureTable(reader, tableName);
});
afterAll(() => reader?.destroy());

const put = (pk: string, extra: Partial<ConstructorParameters<typeof PutItemCommand>[0]> = {}) =>
  new PutItemCommand({
    TableName: tableName,
    Item: { pk: { S: pk }, sk: { S: 'X' }, n: { N: '1' } },
    ...extra,
  });
const read = async (pk: string) =>
  (await reader.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: pk }, sk: { S: 'X' } } })))
    .Item;

describe('a single-item write refused with TransactionConflictException', () => {
  it('is sent again after a pause and lands once', async () => {
    const { client, putsSent } = clientMeetingConflicts(2);
    try {
      await client.send(put('conflict-twice'));
      // Two refused sends (the SDK's own retry did not repeat either: one request each), then the one that wrote.
      expect(putsSent()).toBe(3);
      expect(await read('conflict-twice')).toMatchObject({ n: { N: '1' } });
    } finally {
      client.destroy();
    }
  });

  it('is sent again as the same conditional request: it writes once, and its condition still holds it', async () => {
    const { client, putsSent } = clientMeetingConflicts(1);
    try {
      const conditional = { ConditionExpression: 'attribute_not_exists(pk)' };
      await client.send(put('conditional', conditional));
      expect(putsSent()).toBe(2);
      expect(await read('conditional')).toBeDefined();
      // The same conditional write again: refused by its condition, at once, and not retried.
      const error = await client.send(put('conditional', conditional)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConditionalCheckFailedException);
      expect(putsSent()).toBe(3);
    } finally {
      client.destroy();
    }
  });

  it('surfaces the exception once the conflicts outlast the retries, having written nothing', async () => {
    const { client, putsSent } = clientMeetingConflicts(100);
    try {
      const error = await client.send(put('conflict-always')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TransactionConflictException);
      expect(error).toMatchObject({ $metadata: { httpStatusCode: 400 } });
      expect(putsSent()).toBe(1 + MAX_CONFLICT_RETRIES);
      expect(await read('conflict-always')).toBeUndefined();
    } finally {
      client.destroy();
    }
  });

  it('is retried only within the call’s deadline: none is sent once the caller has its TimeoutError', async () => {
    // Each refusal takes 40 ms: the 100 ms deadline passes during the third send at the latest.
    const { client, putsSent } = clientMeetingConflicts(100, { deadlineMs: 100, answerAfterMs: 40 });
    try {
      const started = performance.now();
      const error = await client.send(put('conflict-past-deadline')).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'TimeoutError' });
      expect(performance.now() - started).toBeLessThan(100 + 500);
      const sentByDeadline = putsSent();
      expect(sentByDeadline).toBeLessThan(1 + MAX_CONFLICT_RETRIES);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(putsSent()).toBe(sentByDeadline);
    } finally {
      client.destroy();
    }
  });

  it('is retried inside the deadline, which bounds the whole call', () => {
    const { client } = clientMeetingConflicts(0);
    try {
      const stack = client.middlewareStack.identify();
      expect(stack.indexOf('deadline - initialize')).toBeGreaterThanOrEqual(0);
      expect(stack.indexOf('transactionConflictRetry - initialize')).toBe(
        stack.indexOf('deadline - initialize') + 1,
      );
    } finally {
      client.destroy();
    }
  });
});

describe('the operators’ pause', () => {
  it('lands when its write first meets a transaction on the controls item (a refund claim checking it)', async () => {
    const { client, putsSent } = clientMeetingConflicts(1);
    try {
      const store = new DynamoDbPayoutStore(client, tableName);
      await store.setControls({
        paused: true,
        reason: 'bank incident',
        updatedBy: { id: 'bob', kind: 'user' },
      });
      expect(putsSent()).toBe(2);
      expect(await new DynamoDbPayoutStore(reader, tableName).getControls()).toMatchObject({
        paused: true,
        reason: 'bank incident',
      });
    } finally {
      client.destroy();
    }
  });
});
