import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';

/** Deadlines on every DynamoDB request; by default the SDK waits forever on a connection that went quiet. */
export const REQUEST_HANDLER = {
  connectionTimeout: 3_000,
  requestTimeout: 10_000,
  throwOnRequestTimeout: true,
};

/**
 * The project's DynamoDB client.
 *
 * - Every request has a deadline: writes are group-committed (`payouts/store/write-coalescer.ts`), so a request
 *   that hung would hold up the writes queued behind it, not just its own caller. A timed-out write is retried
 *   by the SDK; the conditions on every write make a retry of one that did commit fail instead of apply twice.
 * - No SDK logger middleware. The project logs its own decisions and never passes the SDK a logger, yet the
 *   middleware still runs the SDK's no-op logger and, to feed it, walks every request and response through the
 *   sensitive-field filter: about 1 % of the engine's CPU for nothing. Errors still reach the callers.
 */
export function createDynamoDbClient(config: DynamoDBClientConfig = {}): DynamoDBClient {
  const client = new DynamoDBClient({ requestHandler: REQUEST_HANDLER, ...config });
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}
