import type { RecurrenceService } from '../recurrence/recurrence-service.js';
import type { Runtime } from '../runtime/runtime.js';
import { ourScheduledBeneficiaries } from './our-beneficiaries.js';
import { ProviderScheduleService } from './provider-schedule-service.js';
import { DynamoDbProviderScheduleStore } from './store.js';

/** The provider-schedule view on the runtime's table; "ours" is read from the engine and the recurrences. */
export function providerScheduleServiceFrom(
  runtime: Pick<Runtime, 'dynamoDb' | 'tableName' | 'engine' | 'logger'>,
  recurrences: RecurrenceService,
): ProviderScheduleService {
  return new ProviderScheduleService({
    store: new DynamoDbProviderScheduleStore(runtime.dynamoDb, runtime.tableName),
    clock: runtime.engine.ctx.clock,
    ourBeneficiaries: ourScheduledBeneficiaries(runtime.engine, recurrences),
    logger: runtime.logger,
  });
}
