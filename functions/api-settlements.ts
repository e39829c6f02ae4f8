import { apiLambdaHandler } from '../lib/api/api-lambda-handler.js';
import { settlementsApi } from '../lib/api/functions/settlements.js';

/** The ops API's instant settlements (lib/api/functions/settlements.ts). */
export const handler = apiLambdaHandler(settlementsApi);
