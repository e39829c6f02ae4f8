import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgePublisher, type EventPublisher, type StreamBookkeeper } from '../events/index.js';
import { DynamoDbPayoutRunStore, RunEndBookkeeper, RunEndStore } from '../payout-runs/index.js';
import { lambdaLogger } from '../shared/lambda-logger.js';
import type { Logger } from '../shared/logger.js';

/**
 * What the stream publisher (`publish-domain-events`) is made of: the bus, and the payout runs' bookkeeping on the
 * table (their rows' ends and the run's end, lib/payout-runs/run-ends.ts); no provider.
 */
export interface DomainEventRuntime {
  readonly publisher: EventPublisher;
  readonly logger: Logger;
  readonly bookkeeper?: StreamBookkeeper;
}

/** The payout runs' stream bookkeeping on a table. */
export function runEndBookkeeperOf(
  client: DynamoDBClient,
  tableName: string,
  logger: Logger,
): StreamBookkeeper {
  return new RunEndBookkeeper({
    store: new DynamoDbPayoutRunStore(client, tableName),
    ends: new RunEndStore(client, tableName),
    logger,
  });
}

let cached: DomainEventRuntime | undefined;

/**
 * Built once per container from EVENT_BUS_NAME, on first use, so a missing variable fails the first invocation
 * with its name (as `runtimeFromProcessEnv` does for the other functions).
 */
export function domainEventRuntimeFromProcessEnv(): DomainEventRuntime {
  if (cached) return cached;
  const busName = process.env.EVENT_BUS_NAME;
  if (!busName) throw new Error('EVENT_BUS_NAME is not set');
  const tableName = process.env.TABLE_NAME;
  if (!tableName) throw new Error('TABLE_NAME is not set');
  const logger = lambdaLogger({ service: 'payouts-domain-events' });
  cached = {
    publisher: EventBridgePublisher.fromEnvironment(busName),
    logger,
    bookkeeper: runEndBookkeeperOf(new DynamoDBClient({}), tableName, logger),
  };
  return cached;
}
