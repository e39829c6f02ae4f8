import { payoutListingOf, providerSchedulesOf, recurrencesOf } from '../../runtime/index.js';
import { apiFunction } from '../api-function.js';
import { approvalSourcesOf } from '../approval-sources.js';
import { approvalRoutes } from '../routes/approvals.js';
import { futurePayoutRoutes } from '../routes/future-payouts.js';
import { providerScheduleRoutes } from '../routes/provider-schedules.js';
import { recurringPayoutRoutes } from '../routes/recurring-payouts.js';

/**
 * `api-recurrences`: recurring payouts, the provider's own schedules (as synced to the table), what is due in
 * the coming days, and the approvals queue. None of these routes calls the provider, so this function has no
 * provider access and carries no provider code.
 */
export const recurrencesApi = apiFunction<
  'payouts' | 'payoutListing' | 'recurrences' | 'providerSchedules' | 'approvals'
>({
  name: 'api-recurrences',
  routes: [...recurringPayoutRoutes, ...providerScheduleRoutes, ...futurePayoutRoutes, ...approvalRoutes],
  services: (runtime) => ({
    payouts: runtime.payouts,
    payoutListing: payoutListingOf(runtime),
    recurrences: recurrencesOf(runtime),
    providerSchedules: providerSchedulesOf(runtime),
    approvals: approvalSourcesOf(runtime),
  }),
});
