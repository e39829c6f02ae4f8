import { apiLambdaHandler } from '../lib/api/api-lambda-handler.js';
import { operatorsApi } from '../lib/api/functions/operators.js';

/** The ops API's operator management, for admins (lib/api/functions/operators.ts). */
export const handler = apiLambdaHandler(operatorsApi);
