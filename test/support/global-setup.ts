import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../lib/local/dynamodb-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoDbEndpoint: string;
  }
}

let dynamoDb: DynamoDbLocal | undefined;

/** One DynamoDB Local for the whole run; every test file creates its own table in it. */
export async function setup(project: TestProject): Promise<void> {
  dynamoDb = await startDynamoDbLocal();
  project.provide('dynamoDbEndpoint', dynamoDb.endpoint);
}

export async function teardown(): Promise<void> {
  await dynamoDb?.stop();
}
