import type { SyncStatus } from '../provider-schedules/model.js';
import { providerSchedulesOf } from '../runtime/provider-schedules.js';
import type { Runtime } from '../runtime/runtime.js';
import { runProviderScheduleSync } from './scheduled.js';

/** Copies the provider's own scheduled and recurrent payouts into the ops view. */
export async function syncProviderSchedules(runtime: Runtime): Promise<SyncStatus> {
  const status = await runProviderScheduleSync(providerSchedulesOf(runtime), runtime.provider.payouts);
  runtime.logger.info('provider schedules synced', { ...status });
  return status;
}
