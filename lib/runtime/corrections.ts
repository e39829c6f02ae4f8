import {
  BulkCorrectionService,
  CorrectionJobService,
  DynamoDbBulkItemStore,
} from '../bulk-corrections/index.js';
import { BulkPayouts } from '../provider/index.js';
import { correctionJobStoreOf } from './correction-job-store.js';
import { providerConnectionOf } from './provider-connection.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';
import { submissionsOf } from './submissions.js';

export function bulkCorrectionsOf(runtime: Runtime): BulkCorrectionService {
  return once(
    runtime,
    'bulkCorrections',
    () =>
      new BulkCorrectionService({
        store: new DynamoDbBulkItemStore(runtime.dynamoDb, runtime.tableName),
        provider: { bulkPayouts: new BulkPayouts(providerConnectionOf(runtime).requester) },
        limits: runtime.payouts.ctx.config,
        controls: () => runtime.payouts.controls(),
        clock: runtime.payouts.ctx.clock,
        logger: runtime.logger,
        // An approved (or cancelled) row of a correction job takes its outcome in the job.
        heldJobRows: {
          recordHeldOutcome: (job, result) => correctionJobsOf(runtime).recordHeldOutcome(job, result),
          recordHeldCancellation: (job, cancelled) =>
            correctionJobsOf(runtime).recordHeldCancellation(job, cancelled),
        },
      }),
  );
}

/**
 * Bulk corrections as jobs: the API accepts them and hands them to the submission queue (`submissionsOf`),
 * the queue workers work their rows through the same correction service (and so the same gate).
 */
export function correctionJobsOf(runtime: Runtime): CorrectionJobService {
  return once(
    runtime,
    'correctionJobs',
    () =>
      new CorrectionJobService({
        store: correctionJobStoreOf(runtime),
        corrections: bulkCorrectionsOf(runtime),
        limits: runtime.payouts.ctx.config,
        queue: submissionsOf(runtime),
        clock: runtime.payouts.ctx.clock,
        logger: runtime.logger,
      }),
  );
}
