import { ourScheduledBeneficiaries } from '../provider-schedules/our-beneficiaries.js';
import { ProviderScheduleService } from '../provider-schedules/provider-schedule-service.js';
import { DynamoDbProviderScheduleStore } from '../provider-schedules/store.js';
import { DynamoDbRecurrenceStore } from '../recurrence/store/dynamodb-recurrence-store.js';
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
