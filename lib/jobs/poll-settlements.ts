import type { Runtime } from '../runtime/runtime.js';
import { settlementsOf } from '../runtime/settlements.js';
import type { PollReport } from '../settlement/settlement-service.js';
import { logTick } from '../shared/logger.js';

/** Pays SUCCESSFUL settlements no trigger has decided yet; a no-op when instant settlement is not configured. */
export async function pollSettlements(runtime: Runtime): Promise<PollReport | { configured: false }> {
  const settlements = settlementsOf(runtime);
  if (!settlements) return { configured: false };
  const report = await settlements.poll();
  // Each decision is logged by the settlement service; an idle poll says nothing at INFO.
  logTick(runtime.logger, 'settlement poll finished', { ...report });
  return report;
}
