import { PayoutAuditPages } from '../payouts/store/audit-pages.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

/** The reader of payouts' whole audit trails, page by page, on the runtime's table (`GET /payouts/{id}/audit`). */
export function payoutAuditPagesOf(runtime: Runtime): PayoutAuditPages {
  return once(runtime, 'payoutAuditPages', () => new PayoutAuditPages(runtime.dynamoDb, runtime.tableName));
}
