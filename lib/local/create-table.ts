import { CreateTableCommand, type DynamoDBClient, ResourceInUseException } from '@aws-sdk/client-dynamodb';
import { createTableInput } from '../table/index.js';

/** Creates the project's table (local mode and tests; in AWS the CDK stack owns it). Idempotent. */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName)));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
}
