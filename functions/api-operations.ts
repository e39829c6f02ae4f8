import { apiLambdaHandler } from '../lib/api/api-lambda-handler.js';
import { operationsApi } from '../lib/api/functions/operations.js';

/** The ops API's refunds, the provider's views, health (lib/api/functions/operations.ts). */
export const handler = apiLambdaHandler(operationsApi);
