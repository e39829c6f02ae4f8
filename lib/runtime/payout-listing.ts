import { PayoutListing } from '../payouts/store/payout-listing.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

/** The payouts as the API lists them, on the runtime's table (`GET /payouts`, approvals, future payouts). */
export function payoutListingOf(runtime: Runtime): PayoutListing {
  return once(runtime, 'payoutListing', () => new PayoutListing(runtime.dynamoDb, runtime.tableName));
}
