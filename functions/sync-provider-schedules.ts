import type { ScheduledEvent } from 'aws-lambda';
import { runProviderScheduleSync } from '../lib/api/scheduled.js';
import type { SyncStatus } from '../lib/provider-schedules/model.js';
import type { ProviderScheduleService } from '../lib/provider-schedules/provider-schedule-service.js';
import { providerScheduleServiceFrom } from '../lib/provider-schedules/wiring.js';
import { recurrenceServiceFrom } from '../lib/recurrence/wiring.js';
import { runtimeFromProcessEnv } from '../lib/runtime/runtime.js';

let service: ProviderScheduleService | undefined;

/** EventBridge schedule (every 15 minutes): copy the provider's own scheduled and recurrent payouts into the ops view. */
export async function handler(_event: ScheduledEvent): Promise<SyncStatus> {
  const runtime = runtimeFromProcessEnv();
  service ??= providerScheduleServiceFrom(runtime, recurrenceServiceFrom(runtime));
  const status = await runProviderScheduleSync(service, runtime.provider.payouts);
  runtime.logger.info('provider schedules synced', { ...status });
  return status;
}
