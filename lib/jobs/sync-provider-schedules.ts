import { Payouts } from '../provider/index.js';
import type { SyncRun } from '../provider-schedules/index.js';
import { providerConnectionOf, providerSchedulesOf, type Runtime } from '../runtime/index.js';
import { runProviderScheduleSync } from './scheduled.js';

/**
 * Copies the provider's own scheduled and recurrent payouts into the ops view; `remainingMs` (what the
 * invocation has left) stops it in time, and the next run resumes where it stopped.
 */
export async function syncProviderSchedules(runtime: Runtime, remainingMs?: number): Promise<SyncRun> {
  const run = await runProviderScheduleSync(
    providerSchedulesOf(runtime),
    new Payouts(providerConnectionOf(runtime).requester),
    remainingMs,
  );
  runtime.logger.info(
    run.complete ? 'provider schedules synced' : 'provider schedule sync resumes next run',
    {
      ...run,
    },
  );
  return run;
}
