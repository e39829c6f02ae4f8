import { DeadLetterService, inboundEventHandlers } from '../events/index.js';
import { deadLetterStoreOf } from './dead-letter-store.js';
import { payoutEngineOf } from './engines.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';
import { settlementsOf } from './settlements.js';

/** Ops on dead letters: a replay goes to the same handler, and so through the same gate, as the rule's delivery. */
export function deadLettersOf(runtime: Runtime): DeadLetterService {
  return once(
    runtime,
    'deadLetters',
    () =>
      new DeadLetterService(
        deadLetterStoreOf(runtime),
        inboundEventHandlers({
          engine: payoutEngineOf(runtime),
          settlements: settlementsOf(runtime),
          logger: runtime.logger,
        }),
        runtime.payouts.ctx.clock,
      ),
  );
}
