import { DynamoDbBulkItemStore } from '../bulk-corrections/bulk-item-store.js';
import { BulkCorrectionService } from '../bulk-corrections/correction-service.js';
import { DynamoDbDeadLetterStore } from '../events/dead-letter.js';
import { DeadLetterService } from '../events/dead-letter-service.js';
import { inboundEventHandlers } from '../events/inbound-handlers.js';
import { providerScheduleServiceFrom } from '../provider-schedules/wiring.js';
import { recurrenceServiceFrom } from '../recurrence/wiring.js';
import { refundServiceFrom } from '../refunds/wiring.js';
import type { Runtime } from '../runtime/runtime.js';
import type { ApiContext } from './context.js';

/** Wires the ops API onto the runtime (the composition root): the refund service shares its table and client. */
export function apiContextFrom(runtime: Runtime): ApiContext {
  const recurrences = recurrenceServiceFrom(runtime);
  return {
    engine: runtime.engine,
    recurrences,
    providerSchedules: providerScheduleServiceFrom(runtime, recurrences),
    provider: runtime.provider,
    refunds: refundServiceFrom(runtime),
    settlements: runtime.settlements,
    bulkCorrections: new BulkCorrectionService({
      store: new DynamoDbBulkItemStore(runtime.dynamoDb, runtime.tableName),
      provider: runtime.provider,
      limits: runtime.engine.ctx.config,
      controls: () => runtime.engine.controls(),
      logger: runtime.logger,
    }),
    deadLetters: new DeadLetterService(
      new DynamoDbDeadLetterStore(runtime.dynamoDb, runtime.tableName),
      inboundEventHandlers(runtime),
      runtime.engine.ctx.clock,
    ),
    logger: runtime.logger,
    mode: runtime.mode,
    sessionNamedRoles: runtime.env.OPS_SESSION_NAMED_ROLES,
  };
}
