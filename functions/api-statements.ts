import { apiLambdaHandler } from '../lib/api/api-lambda-handler.js';
import { statementsApi } from '../lib/api/functions/statements.js';

/** The ops API's daily statements: list, read, lines, CSV, re-run (lib/api/functions/statements.ts). */
export const handler = apiLambdaHandler(statementsApi);
