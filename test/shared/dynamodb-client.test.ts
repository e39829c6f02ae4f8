import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { GetItemCommand, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import { createDynamoDbClient, nextRequestSent } from '../../lib/shared/dynamodb-client.js';
import { startSilentServer } from '../support/silent-server.js';

describe('createDynamoDbClient', () => {
  it('has no SDK logger middleware and still talks to DynamoDB', async () => {
    const client = createDynamoDbClient({ endpoint: inject('dynamoDbEndpoint'), ...localAwsConfig });
    try {
      expect(client.middlewareStack.identify().filter((name) => name.startsWith('loggerMiddleware'))).toEqual(
        [],
      );
      const tables = await client.send(new ListTablesCommand({}));
      expect(Array.isArray(tables.TableNames)).toBe(true);
    } finally {
      client.destroy();
    }
  });

  it('tells who waits for its next request once the request has gone out, and not before', async () => {
    const silent = await startSilentServer();
    const client = createDynamoDbClient({ endpoint: silent.url, ...localAwsConfig }, 2_000);
    const order: string[] = [];
    const started = () => order.push('request written to the network');
    subscribe('http.client.request.start', started);
    try {
      const sent = nextRequestSent(client).then(() => order.push('waiter told'));
      expect(order).toEqual([]);
      const call = client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } }));
      call.catch(() => undefined);
      await sent;
      expect(order).toEqual(['request written to the network', 'waiter told']);
    } finally {
      unsubscribe('http.client.request.start', started);
      client.destroy();
      await silent.close();
    }
  });
});
