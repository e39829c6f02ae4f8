import { PayoutListing } from '../payouts/index.js';
import { PayoutDays } from '../statements/index.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

/** The payouts as the API lists them, on the runtime's table (`GET /payouts`, approvals, future payouts). */
export function payoutListingOf(runtime: Runtime): PayoutListing {
  return once(runtime, 'payoutListing', () => new PayoutListing(runtime.dynamoDb, runtime.tableName));
}

/** The payouts created on days of the statement's zone (`GET /payouts/export.csv`), on the same listing. */
export function payoutDaysOf(runtime: Runtime): PayoutDays {
  return once(
    runtime,
    'payoutDays',
    () => new PayoutDays(payoutListingOf(runtime), runtime.env.STATEMENT_TIME_ZONE),
  );
}
