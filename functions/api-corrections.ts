import { apiLambdaHandler } from '../lib/api/api-lambda-handler.js';
import { correctionsApi } from '../lib/api/functions/corrections.js';

/** The ops API's bulk corrections, correction jobs, dead letters, approvals (lib/api/functions/corrections.ts). */
export const handler = apiLambdaHandler(correctionsApi);
