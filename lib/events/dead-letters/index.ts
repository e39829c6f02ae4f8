/**
 * Dead letters: events no handler could accept, kept with their error for a person to list, replay or discard.
 * The model and the store's port (`model.ts`), the capture around a handler (`capture.ts`), the service ops use
 * (`service.ts`), and the store in the table (`dynamodb-store.ts`) or in memory (`in-memory-store.ts`).
 */
export { type DeadLettered, deadLetterOf, withDeadLetter } from './capture.js';
export { DynamoDbDeadLetterStore } from './dynamodb-store.js';
export { InMemoryDeadLetterStore } from './in-memory-store.js';
export {
  type ActGuard,
  clipError,
  DEAD_LETTER_EVENT_PREVIEW,
  DEAD_LETTER_ISSUES,
  DEAD_LETTER_REPLAY_LEASE_MS,
  DEAD_LETTER_STATUSES,
  type DeadLetter,
  type DeadLetterAction,
  type DeadLetterError,
  type DeadLetterSink,
  DeadLetterStatus,
  type DeadLetterStore,
  type ReplayClaim,
} from './model.js';
export { DeadLetterService, type ReplayResult } from './service.js';
