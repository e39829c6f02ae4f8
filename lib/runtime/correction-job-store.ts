import { DynamoDbCorrectionJobStore } from '../bulk-corrections/index.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

/** The correction jobs' store: the API's and workers' service, and the sweeper's hand-over, share it. */
export function correctionJobStoreOf(runtime: Runtime): DynamoDbCorrectionJobStore {
  return once(
    runtime,
    'correctionJobStore',
    () => new DynamoDbCorrectionJobStore(runtime.dynamoDb, runtime.tableName),
  );
}
