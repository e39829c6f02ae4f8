import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { apiHandlerOf } from '../lib/api/index.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';

/** The ops API Lambda (HTTP API v2, IAM auth): route the event, return the result. */
export const handler = withRuntime(
  (event: APIGatewayProxyEventV2, runtime): Promise<APIGatewayProxyStructuredResultV2> =>
    apiHandlerOf(runtime)(event),
);
