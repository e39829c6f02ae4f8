import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { ensureTable } from '../../lib/local/create-table.js';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import { DynamoDbPayoutStore } from '../../lib/payouts/store/dynamodb-payout-store.js';
import { createDynamoDbClient } from '../../lib/shared/dynamodb-client.js';

/** A fresh table in the run's DynamoDB Local, so test files never see each other's items. */
export async function createTestTable(prefix = 'test'): Promise<{
  client: DynamoDBClient;
  tableName: string;
  store: DynamoDbPayoutStore;
  endpoint: string;
}> {
  const endpoint = inject('dynamoDbEndpoint');
  const client = createDynamoDbClient({ endpoint, ...localAwsConfig });
  const tableName = `${prefix}-${randomUUID()}`;
  await ensureTable(client, tableName);
  return { client, tableName, store: new DynamoDbPayoutStore(client, tableName), endpoint };
}
