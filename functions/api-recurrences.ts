import { apiLambdaHandler } from '../lib/api/api-lambda-handler.js';
import { recurrencesApi } from '../lib/api/functions/recurrences.js';

/** The ops API's recurring payouts, the provider's schedules, future payouts, approvals (lib/api/functions/recurrences.ts). */
export const handler = apiLambdaHandler(recurrencesApi);
