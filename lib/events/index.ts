/** The events room's front door: what other rooms may use of it. */
export {
  DEAD_LETTER_EVENT_PREVIEW,
  DEAD_LETTER_STATUSES,
  type DeadLetter,
  DeadLetterService,
  DynamoDbDeadLetterStore,
} from './dead-letters/index.js';
export {
  APPROVAL_DECIDED_EVENT,
  APPROVAL_REQUESTED_EVENT,
  ApprovalDecidedDetailSchema,
  ApprovalRequestedDetailSchema,
  PAID_TWICE_EVENT,
  PUBLISHED_OUTCOMES,
  STATEMENT_MISMATCH_EVENT,
} from './domain-events.js';
export { EventBridgePublisher, type EventPublisher } from './event-publisher.js';
export { inboundEventHandlers } from './inbound-handlers.js';
export { publishStreamBatch, type StreamBookkeeper } from './publish-stream-batch.js';
export { SettlementIdSchema } from './schemas.js';
