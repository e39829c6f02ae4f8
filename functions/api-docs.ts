import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { docsApiHandler } from '../lib/api/functions/docs.js';

/** The ops API's OpenAPI document and its answer to every undeclared route (lib/api/functions/docs.ts). */
export const handler = (
  event: APIGatewayProxyEventV2,
  context: Context,
): Promise<APIGatewayProxyStructuredResultV2> =>
  docsApiHandler()(event, { remainingMs: context.getRemainingTimeInMillis() });
