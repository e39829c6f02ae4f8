/** The recurrence room's front door: what other rooms may use of it. */
export { defaultRecurrenceConfig } from './context.js';
export { type RecurrenceSweepOptions, type RecurrenceSweepReport, sweepRecurrences } from './materialise.js';
export {
  OccurrenceState,
  RECURRENCE_ACTIONS,
  RECURRENCE_STATUSES,
  type Recurrence,
  RecurrenceStatus,
} from './model.js';
export type { HistoryEntry, RecurrenceView } from './recurrence-history.js';
export { RecurrenceService } from './recurrence-service.js';
export { isCalendarDate, occurrences, RecurrenceInterval } from './rules.js';
export { CreateRecurrenceRequestSchema } from './schemas.js';
export { DynamoDbRecurrenceStore } from './store/dynamodb-recurrence-store.js';
export type { RecurrencePage } from './store/recurrence-store.js';
