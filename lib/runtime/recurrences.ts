import { DynamoDbRecurrenceStore, RecurrenceService } from '../recurrence/index.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

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
/** Recurring payouts: rules, their approval and the occurrences the sweep materialises. */
export function recurrencesOf(runtime: Runtime): RecurrenceService {
  return once(
    runtime,
    'recurrences',
    () =>
      new RecurrenceService({
        store: new DynamoDbRecurrenceStore(runtime.dynamoDb, runtime.tableName),
        payouts: runtime.payouts,
        limits: runtime.payouts.ctx.config,
        clock: runtime.payouts.ctx.clock,
        logger: runtime.logger,
      }),
  );
}
