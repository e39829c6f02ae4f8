import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { apiContextFrom } from '../lib/api/api-context.js';
import { type ApiHandler, createApiHandler } from '../lib/api/index.js';
import { withRuntime } from '../lib/runtime/lambda-handler.js';

let api: ApiHandler | undefined;

/** The ops API Lambda (HTTP API v2, IAM auth): route the event, return the result. */
export const handler = withRuntime(
  async (event: APIGatewayProxyEventV2, runtime): Promise<APIGatewayProxyStructuredResultV2> => {
    api ??= createApiHandler(apiContextFrom(runtime));
    return api(event);
  },
);
