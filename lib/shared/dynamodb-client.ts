import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';

/**
 * A DynamoDB client without the SDK's logger middleware. The project logs its own decisions and never passes
 * the SDK a logger, yet the middleware still runs the SDK's no-op logger and, to feed it, walks every request
 * and response through the sensitive-field filter: about 1 % of the engine's CPU for nothing. Errors still
 * reach the callers as exceptions.
 */
export function createDynamoDbClient(config: DynamoDBClientConfig = {}): DynamoDBClient {
  const client = new DynamoDBClient(config);
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}
