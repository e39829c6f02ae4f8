import { statementStoreOf, statementsOf } from '../../runtime/statements.js';
import { apiFunction } from '../api-function.js';
import { statementRoutes } from '../routes/statements.js';

/**
 * `api-statements`: the daily statements read by a person, and a day re-run by one. A re-run lists the provider's
 * wallet transactions (the token) and may move a payout paid twice to needs_review through the engine.
 */
export const statementsApi = apiFunction<'statements'>({
  name: 'api-statements',
  routes: statementRoutes,
  services: (runtime) => ({
    statements: { store: statementStoreOf(runtime), service: statementsOf(runtime) },
  }),
});
