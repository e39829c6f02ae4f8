import { deadLettersOf } from '../../runtime/index.js';
import { apiFunction } from '../api-function.js';
import { deadLetterRoutes } from '../routes/dead-letters.js';

/**
 * `api-dead-letters`: inbound events no handler could accept, listed, replayed or discarded by a person. A replay
 * runs the inbound handlers (a payout requested is created and submitted, a settlement decided), so this
 * function carries the payout engine's send path and the settlement service.
 */
export const deadLettersApi = apiFunction<'deadLetters'>({
  name: 'api-dead-letters',
  routes: deadLetterRoutes,
  services: (runtime) => ({ deadLetters: deadLettersOf(runtime) }),
});
