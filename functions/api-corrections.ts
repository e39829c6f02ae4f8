import { apiLambdaHandler } from '../lib/api/api-lambda-handler.js';
import { correctionsApi } from '../lib/api/functions/corrections.js';

/** The ops API's bulk payout items, their corrections and correction jobs (lib/api/functions/corrections.ts). */
export const handler = apiLambdaHandler(correctionsApi);
