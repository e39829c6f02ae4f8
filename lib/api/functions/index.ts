import { mostSpecificFirst, normalisePath, pathPattern, type Route } from '../router.js';
import { correctionsApi } from './corrections.js';
import { deadLettersApi } from './dead-letters.js';
import { docsApi } from './docs.js';
import { operationsApi } from './operations.js';
import { operatorsApi } from './operators.js';
import { payoutRunsApi } from './payout-runs.js';
import { payoutsApi } from './payouts.js';
import { recurrencesApi } from './recurrences.js';
import { settlementsApi } from './settlements.js';
import { statementsApi } from './statements.js';

/**
 * The ops API's Lambda functions by name (their files in `functions/`, their entries in infra/handlers.ts), each
 * with the routes it alone serves. This is the route table: each function's router and the API Gateway routes
 * (infra/constructs/ops-api.ts) both come from it, and `apiRoutes` (lib/api/index.ts, the local server's) is
 * its union. A function imports only its own entry, so its bundle carries only its own routes.
 */
export const API_FUNCTIONS = {
  'api-payouts': payoutsApi,
  'api-recurrences': recurrencesApi,
  'api-operations': operationsApi,
  'api-settlements': settlementsApi,
  'api-corrections': correctionsApi,
  'api-dead-letters': deadLettersApi,
  'api-payout-runs': payoutRunsApi,
  'api-statements': statementsApi,
  'api-operators': operatorsApi,
  'api-docs': docsApi,
} as const;
export type ApiFunctionName = keyof typeof API_FUNCTIONS;

/**
 * Where API Gateway sends a request no declared route matches (its `$default` route): a function that answers
 * the API's 404 problem, as the local server does, and has no access to anything.
 */
export const FALLBACK_API_FUNCTION: ApiFunctionName = 'api-docs';

/** One route of the ops API, the function that serves it and the role a caller must hold. */
export interface ApiRouteEntry {
  readonly functionName: ApiFunctionName;
  readonly method: Route['method'];
  readonly path: string;
  readonly role: Route['role'];
}

/** Every route with the function that serves it, in the order the functions are listed. */
export function apiRouteTable(): ApiRouteEntry[] {
  return (Object.keys(API_FUNCTIONS) as ApiFunctionName[]).flatMap((functionName) =>
    API_FUNCTIONS[functionName].routes.map(({ method, path, role }) => ({
      functionName,
      method,
      path,
      role,
    })),
  );
}

/** The route table with each path template compiled, once: `npm start` asks for every request. */
let routePatterns: (ApiRouteEntry & { readonly pattern: RegExp })[] | undefined;

/**
 * The function API Gateway invokes for a request (infra/constructs/ops-api.ts): the one whose route has this
 * method and path template, else the one serving the path (its `ANY` route: it answers 405), else the fallback
 * (`$default`: 404). For `npm start` and the tests, which run each request as the function serving it in AWS.
 */
export function apiFunctionServing(method: string, rawPath: string): ApiFunctionName {
  const path = normalisePath(rawPath);
  routePatterns ??= mostSpecificFirst(apiRouteTable()).map((route) => ({
    ...route,
    pattern: pathPattern(route.path).pattern,
  }));
  const onPath = routePatterns.filter((route) => route.pattern.test(path));
  const served = onPath.find((route) => route.method === method.toUpperCase()) ?? onPath[0];
  return served?.functionName ?? FALLBACK_API_FUNCTION;
}
