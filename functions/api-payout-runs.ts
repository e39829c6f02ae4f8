import { apiLambdaHandler } from '../lib/api/api-lambda-handler.js';
import { payoutRunsApi } from '../lib/api/functions/payout-runs.js';

/** The ops API's payout runs (lib/api/functions/payout-runs.ts). */
export const handler = apiLambdaHandler(payoutRunsApi);
