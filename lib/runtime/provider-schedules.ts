import {
  DynamoDbProviderScheduleStore,
  ourScheduledBeneficiaries,
  ProviderScheduleService,
} from '../provider-schedules/index.js';
import { DynamoDbRecurrenceStore } from '../recurrence/index.js';
import { payoutListingOf } from './payout-listing.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

/** The provider-schedule view; "ours" is read from the engine and the recurrence rules. */
export function providerSchedulesOf(runtime: Runtime): ProviderScheduleService {
  return once(
    runtime,
    'providerSchedules',
    () =>
      new ProviderScheduleService({
        store: new DynamoDbProviderScheduleStore(runtime.dynamoDb, runtime.tableName),
        clock: runtime.payouts.ctx.clock,
        // The rules are read straight from their store (what RecurrenceService.list does), so the schedule sync
        // does not carry the recurrence service's code.
        ourBeneficiaries: ourScheduledBeneficiaries(
          payoutListingOf(runtime),
          new DynamoDbRecurrenceStore(runtime.dynamoDb, runtime.tableName),
        ),
        logger: runtime.logger,
      }),
  );
}
