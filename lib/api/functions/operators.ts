import { operatorsOf } from '../../runtime/index.js';
import { apiFunction } from '../api-function.js';
import { operatorRoutes } from '../routes/operators.js';

/**
 * `api-operators`: admins manage the operators of the user pool (list, invite, grant, confirm, revoke, disable,
 * enable). The one function with the Cognito client and the pool's admin actions (infra/handlers.ts).
 */
export const operatorsApi = apiFunction<'operators'>({
  name: 'api-operators',
  routes: operatorRoutes,
  services: (runtime) => ({ operators: operatorsOf(runtime) }),
});
