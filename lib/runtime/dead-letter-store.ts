import { DynamoDbDeadLetterStore } from '../events/index.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

/** Where inbound events no handler can accept are kept (the event handlers write, ops read and act). */
export function deadLetterStoreOf(runtime: Runtime): DynamoDbDeadLetterStore {
  return once(
    runtime,
    'deadLetterStore',
    () => new DynamoDbDeadLetterStore(runtime.dynamoDb, runtime.tableName),
  );
}
