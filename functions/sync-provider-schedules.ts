import type { ScheduledEvent } from 'aws-lambda';
import { runProviderScheduleSync } from '../lib/api/scheduled.js';
import type { SyncStatus } from '../lib/provider-schedules/model.js';
import type { ProviderScheduleService } from '../lib/provider-schedules/provider-schedule-service.js';
import { providerScheduleServiceFrom } from '../lib/provider-schedules/wiring.js';
import { recurrenceServiceFrom } from '../lib/recurrence/wiring.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';

let service: ProviderScheduleService | undefined;

/** EventBridge schedule (every 15 minutes): copy the provider's own scheduled and recurrent payouts into the ops view. */
export const handler = withRuntime(async (_event: ScheduledEvent, runtime): Promise<SyncStatus> => {
  service ??= providerScheduleServiceFrom(runtime, recurrenceServiceFrom(runtime));
  const status = await runProviderScheduleSync(service, runtime.provider.payouts);
  runtime.logger.info('provider schedules synced', { ...status });
  return status;
});
