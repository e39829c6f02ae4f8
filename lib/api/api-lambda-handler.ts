import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { withRuntime } from '../runtime/index.js';
import type { ApiFunction } from './api-function.js';
import type { ApiService } from './services.js';

/**
 * The Lambda handler of one API function (HTTP API v2, IAM auth): route the event under the invocation's time
 * left (lib/api/request-deadline.ts), return the result.
 *
 * @example export const handler = apiLambdaHandler(payoutsApi);
 */
export function apiLambdaHandler<S extends ApiService>(
  api: ApiFunction<S>,
): (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2> {
  return withRuntime((event: APIGatewayProxyEventV2, runtime, context) =>
    api.routerOn(runtime)(event, { remainingMs: context.getRemainingTimeInMillis() }),
  );
}
