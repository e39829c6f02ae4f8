import { lambdaLogger } from '../../shared/lambda-logger.js';
import { apiFunction } from '../api-function.js';
import { type ApiHandler, createRouter } from '../router.js';
import { openApiRoutes } from '../routes/openapi-document.js';

/**
 * `api-docs`: the OpenAPI document, and every request no route declares (API Gateway's `$default` route), which
 * it answers with the API's 404 problem. It touches no table, secret or provider, so it builds no runtime: its
 * bundle carries neither the AWS SDK nor undici.
 */
export const docsApi = apiFunction<never>({
  name: 'api-docs',
  routes: openApiRoutes,
  services: () => ({}),
});

let handler: ApiHandler | undefined;

/** The `api-docs` Lambda's router, built once per container with the logger every function writes with. */
export function docsApiHandler(): ApiHandler {
  handler ??= createRouter(docsApi.routes, { logger: lambdaLogger({ service: 'payouts' }), mode: 'aws' });
  return handler;
}
