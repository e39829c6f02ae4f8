import { PayoutAuditTrail } from '../payouts/index.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

/** The reader of payouts' whole audit trails, page by page, on the runtime's table (`GET /payouts/{id}/audit`). */
export function payoutAuditTrailOf(runtime: Runtime): PayoutAuditTrail {
  return once(runtime, 'payoutAuditTrail', () => new PayoutAuditTrail(runtime.dynamoDb, runtime.tableName));
}
