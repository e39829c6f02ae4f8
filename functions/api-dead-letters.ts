import { apiLambdaHandler } from '../lib/api/api-lambda-handler.js';
import { deadLettersApi } from '../lib/api/functions/dead-letters.js';

/** The ops API's dead letters: list, replay, discard (lib/api/functions/dead-letters.ts). */
export const handler = apiLambdaHandler(deadLettersApi);
