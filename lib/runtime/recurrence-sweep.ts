import {
  DynamoDbRecurrenceStore,
  defaultRecurrenceConfig,
  type RecurrenceSweepOptions,
  type RecurrenceSweepReport,
  sweepRecurrences,
} from '../recurrence/index.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

/** The one operation of recurring payouts the every-minute sweep runs. */
export interface RecurrenceSweep {
  sweep(options?: RecurrenceSweepOptions): Promise<RecurrenceSweepReport>;
}

/**
 * The recurrence sweep alone (materialise due occurrences), on the same store, engine, limits, clock and logger
 * as `recurrencesOf(runtime)`. The sweep function asks for this, not the whole RecurrenceService (rules, their
 * approval, views: the ops API's), so its bundle carries only the operation it runs.
 */
export function recurrenceSweepOf(runtime: Runtime): RecurrenceSweep {
  const ctx = once(runtime, 'recurrenceSweep', () => ({
    store: new DynamoDbRecurrenceStore(runtime.dynamoDb, runtime.tableName),
    payouts: runtime.payouts,
    limits: runtime.payouts.ctx.config,
    clock: runtime.payouts.ctx.clock,
    logger: runtime.logger,
    config: defaultRecurrenceConfig,
  }));
  return { sweep: (options) => sweepRecurrences(ctx, options) };
}
