import { identitySettingsOf } from '../operators/index.js';
import { once, type Runtime, traceDynamoDbCalls } from '../runtime/index.js';
import { type Answers, type ApiHandler, createRouter, type Route } from './router.js';
import type { ApiEnvironment, ApiService, ApiServices } from './services.js';

/**
 * One Lambda function of the ops API: the routes it serves and the services they use, built from the runtime.
 * The ops API is split so that each function's bundle carries only its own routes' code (issue 18); API
 * Gateway sends each route to the function that serves it (infra/constructs/ops-api.ts).
 */
export interface ApiFunction<S extends ApiService> {
  /** Its file in `functions/` and its entry in infra/handlers.ts. */
  readonly name: string;
  readonly routes: readonly Route<Answers, S>[];
  /** The services its routes use, from the composition root (each built once per runtime there). */
  readonly services: (runtime: Runtime) => Pick<ApiServices, S>;
  /** Its router on the runtime, built once per runtime (per Lambda container). */
  readonly routerOn: (runtime: Runtime) => ApiHandler;
}

/**
 * Declares an API function: its routes are type-checked against the services it builds for them.
 *
 * @example export const payoutsApi = apiFunction<'payouts'>({ name: 'api-payouts', routes, services: (runtime) => ({ payouts: runtime.payouts }) });
 */
export function apiFunction<S extends ApiService>(
  definition: Omit<ApiFunction<S>, 'routerOn'>,
): ApiFunction<S> {
  const api: ApiFunction<S> = { ...definition, routerOn: (runtime) => apiRouterOn(api, runtime) };
  return api;
}

/** What every API function takes from the runtime, whatever its routes. */
export function apiEnvironmentOf(runtime: Runtime): ApiEnvironment {
  return {
    logger: runtime.logger,
    mode: runtime.mode,
    ...identitySettingsOf(runtime.env),
    disabledOperators: runtime.disabledOperators,
  };
}

function apiRouterOn<S extends ApiService>(api: ApiFunction<S>, runtime: Runtime): ApiHandler {
  return once(runtime, `api:${api.name}`, () => {
    traceDynamoDbCalls(runtime);
    return createRouter(api.routes, { ...apiEnvironmentOf(runtime), ...api.services(runtime) });
  });
}
