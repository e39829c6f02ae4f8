import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { apiHandlerOf } from '../lib/api/index.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';

/** The ops API Lambda (HTTP API v2, IAM auth): route the event under the invocation's time left, return the result. */
export const handler = withRuntime(
  (event: APIGatewayProxyEventV2, runtime, context): Promise<APIGatewayProxyStructuredResultV2> =>
    apiHandlerOf(runtime)(event, { remainingMs: context.getRemainingTimeInMillis() }),
);
