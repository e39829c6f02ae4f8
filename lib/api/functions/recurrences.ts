import { providerSchedulesOf } from '../../runtime/provider-schedules.js';
import { recurrencesOf } from '../../runtime/recurrences.js';
import { apiFunction } from '../api-function.js';
import { futurePayoutRoutes } from '../routes/future-payouts.js';
import { providerScheduleRoutes } from '../routes/provider-schedules.js';
import { recurringPayoutRoutes } from '../routes/recurring-payouts.js';

/** `api-recurrences`: recurring payouts, the provider's own schedules, and what is due in the coming days. */
export const recurrencesApi = apiFunction<'engine' | 'recurrences' | 'providerSchedules'>({
  name: 'api-recurrences',
  routes: [...recurringPayoutRoutes, ...providerScheduleRoutes, ...futurePayoutRoutes],
  services: (runtime) => ({
    engine: runtime.engine,
    recurrences: recurrencesOf(runtime),
    providerSchedules: providerSchedulesOf(runtime),
  }),
});
