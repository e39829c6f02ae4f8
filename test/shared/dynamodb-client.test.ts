import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import { createDynamoDbClient } from '../../lib/shared/dynamodb-client.js';

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
});
