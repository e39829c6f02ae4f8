import { identityEnvOf, identitySettingsOf } from '../../operators/index.js';
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

/**
 * The `api-docs` Lambda's router, built once per container with the logger every function writes with and the
 * identity variables (who may read the document: lib/operators/roles.ts).
 */
export function docsApiHandler(env: Readonly<Record<string, string | undefined>> = process.env): ApiHandler {
  handler ??= createRouter(docsApi.routes, {
    logger: lambdaLogger({ service: 'payouts' }),
    mode: 'aws',
    ...identitySettingsOf(identityEnvOf(env)),
  });
  return handler;
}
