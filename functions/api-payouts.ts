import { apiLambdaHandler } from '../lib/api/api-lambda-handler.js';
import { payoutsApi } from '../lib/api/functions/payouts.js';

/** The ops API's payout routes: a payout's life (create, list, read, cancel, approve, resolve) and the controls (lib/api/functions/payouts.ts). */
export const handler = apiLambdaHandler(payoutsApi);
