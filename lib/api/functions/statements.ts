import { payoutDaysOf, statementStoreOf, statementsOf } from '../../runtime/index.js';
import { apiFunction } from '../api-function.js';
import { payoutExportRoutes } from '../routes/payout-export.js';
import { statementRoutes } from '../routes/statements.js';

/**
 * `api-statements`: the books. The daily statements read by a person, and a day re-run by one (a re-run lists the
 * provider's wallet transactions with the token and may move a payout paid twice to needs_review through the
 * engine); and the payouts of a date range exported as CSV.
 */
export const statementsApi = apiFunction<'statements' | 'payoutDays'>({
  name: 'api-statements',
  routes: [...statementRoutes, ...payoutExportRoutes],
  services: (runtime) => ({
    statements: { store: statementStoreOf(runtime), service: statementsOf(runtime) },
    payoutDays: payoutDaysOf(runtime),
  }),
});
