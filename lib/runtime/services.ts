import { DynamoDbBulkItemStore } from '../bulk-corrections/bulk-item-store.js';
import { CorrectionJobService } from '../bulk-corrections/correction-jobs.js';
import { BulkCorrectionService } from '../bulk-corrections/correction-service.js';
import { DynamoDbCorrectionJobStore } from '../bulk-corrections/job-store.js';
import { DeadLetterService } from '../events/dead-letter-service.js';
import { inboundEventHandlers } from '../events/inbound-handlers.js';
import { ourScheduledBeneficiaries } from '../provider-schedules/our-beneficiaries.js';
import { ProviderScheduleService } from '../provider-schedules/provider-schedule-service.js';
import { DynamoDbProviderScheduleStore } from '../provider-schedules/store.js';
import { RecurrenceService } from '../recurrence/recurrence-service.js';
import { DynamoDbRecurrenceStore } from '../recurrence/store/dynamodb-recurrence-store.js';
import { RefundService } from '../refunds/refund-service.js';
import { DynamoDbRefundStore } from '../refunds/refund-store.js';
import { deadLetterStoreOf } from './dead-letter-store.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';
import { settlementsOf } from './settlements.js';

/**
 * The composition root's feature services, each built from the runtime (its table, provider client, engine,
 * clock, limits and logger) on first use and then kept for the runtime's life: once per Lambda container, once
 * per `npm start`. They are functions of their own, not fields of the runtime, so a function's bundle carries
 * only the services its handler asks for (esbuild drops the others). The services an event or job handler needs
 * without the ops API's (instant settlement, the dead-letter store) have files of their own, so those bundles do
 * not even evaluate the others' modules (their zod schemas are module-level values esbuild must keep).
 *
 * Every service shares the engine's clock, so an injected clock moves them all, and the engine's limits, so a
 * rule, a refund or a correction passes the same gate as a payout.
 */
export function recurrencesOf(runtime: Runtime): RecurrenceService {
  return once(
    runtime,
    'recurrences',
    () =>
      new RecurrenceService({
        store: new DynamoDbRecurrenceStore(runtime.dynamoDb, runtime.tableName),
        payouts: runtime.engine,
        limits: runtime.engine.ctx.config,
        clock: runtime.engine.ctx.clock,
        logger: runtime.logger,
      }),
  );
}

export function refundsOf(runtime: Runtime): RefundService {
  return once(
    runtime,
    'refunds',
    () =>
      new RefundService({
        store: new DynamoDbRefundStore(runtime.dynamoDb, runtime.tableName),
        provider: runtime.provider,
        limits: runtime.engine.ctx.config,
        clock: runtime.engine.ctx.clock,
        logger: runtime.logger,
      }),
  );
}

/** The provider-schedule view; "ours" is read from the engine and the recurrence rules. */
export function providerSchedulesOf(runtime: Runtime): ProviderScheduleService {
  return once(
    runtime,
    'providerSchedules',
    () =>
      new ProviderScheduleService({
        store: new DynamoDbProviderScheduleStore(runtime.dynamoDb, runtime.tableName),
        clock: runtime.engine.ctx.clock,
        // The rules are read straight from their store (what RecurrenceService.list does), so the schedule sync
        // does not carry the recurrence service's code.
        ourBeneficiaries: ourScheduledBeneficiaries(
          runtime.engine,
          new DynamoDbRecurrenceStore(runtime.dynamoDb, runtime.tableName),
        ),
        logger: runtime.logger,
      }),
  );
}

export function bulkCorrectionsOf(runtime: Runtime): BulkCorrectionService {
  return once(
    runtime,
    'bulkCorrections',
    () =>
      new BulkCorrectionService({
        store: new DynamoDbBulkItemStore(runtime.dynamoDb, runtime.tableName),
        provider: runtime.provider,
        limits: runtime.engine.ctx.config,
        controls: () => runtime.engine.controls(),
        clock: runtime.engine.ctx.clock,
        logger: runtime.logger,
        // An approved row of a correction job takes its outcome in the job.
        heldJobRows: {
          recordHeldOutcome: (job, result) => correctionJobsOf(runtime).recordHeldOutcome(job, result),
        },
      }),
  );
}

/** The correction jobs' store: the API's and workers' service, and the sweeper's hand-over, share it. */
export function correctionJobStoreOf(runtime: Runtime): DynamoDbCorrectionJobStore {
  return once(
    runtime,
    'correctionJobStore',
    () => new DynamoDbCorrectionJobStore(runtime.dynamoDb, runtime.tableName),
  );
}

/**
 * Bulk corrections as jobs: the API accepts them and hands them to the submission queue (`correctionWork`),
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
        limits: runtime.engine.ctx.config,
        queue: runtime.correctionWork,
        clock: runtime.engine.ctx.clock,
        logger: runtime.logger,
      }),
  );
}

/** Ops on dead letters: a replay goes to the same handler, and so through the same gate, as the rule's delivery. */
export function deadLettersOf(runtime: Runtime): DeadLetterService {
  return once(
    runtime,
    'deadLetters',
    () =>
      new DeadLetterService(
        deadLetterStoreOf(runtime),
        inboundEventHandlers({
          engine: runtime.engine,
          settlements: settlementsOf(runtime),
          logger: runtime.logger,
        }),
        runtime.engine.ctx.clock,
      ),
  );
}
