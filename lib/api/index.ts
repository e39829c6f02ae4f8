import { once, type Runtime } from '../runtime/index.js';
import { API_FUNCTIONS } from './functions/index.js';
import { type ApiHandler, createRouter, type Route } from './router.js';
import type { ApiContext } from './services.js';
import { apiContextFrom } from './services-from-runtime.js';

export type { ApiHandler, Route, RouteCommand } from './router.js';
export type { ApiContext } from './services.js';

/**
 * Every route of the ops API: the union of the functions' routes (lib/api/functions/index.ts), each served by
 * one function in AWS and all by this one handler locally (`npm start`) and in the tests.
 */
export const apiRoutes: readonly Route[] = Object.values(API_FUNCTIONS).flatMap(
  (fn): readonly Route[] => fn.routes,
);

/**
 * The whole ops API as one function of an API Gateway HTTP API v2 event: `npm start` and the tests call it; in AWS
 * each of lib/api/functions/ serves its own routes.
 *
 * @example
 * const handle = createApiHandler({ engine, refunds, provider, logger, mode: 'local' });
 * const result = await handle(event);
 */
export function createApiHandler(ctx: ApiContext): ApiHandler {
  return createRouter(apiRoutes, ctx);
}

/** The ops API on the composition root's runtime, built once per runtime (per Lambda container, per `npm start`). */
export function apiHandlerOf(runtime: Runtime): ApiHandler {
  return once(runtime, 'apiHandler', () => createApiHandler(apiContextFrom(runtime)));
}
export { unauthenticated } from './errors.js';
export { LOCAL_PRINCIPAL_HEADER, LOCAL_ROLES_HEADER, type Operator } from './principal.js';
export { type ProblemSlug, problemType } from './problem-types.js';
