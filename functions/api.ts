import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { apiContextFrom } from '../lib/api/api-context.js';
import { type ApiHandler, createApiHandler } from '../lib/api/index.js';
import { runtimeFromProcessEnv } from '../lib/runtime/runtime.js';

let api: ApiHandler | undefined;

/** The ops API Lambda (HTTP API v2, IAM auth): route the event, return the result. */
export async function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  api ??= createApiHandler(apiContextFrom(runtimeFromProcessEnv()));
  return api(event);
}
