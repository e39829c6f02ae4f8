/** The provider-schedules room's front door: what other rooms may use of it. */
export { beneficiaryKey, ProviderScheduleKind, type ProviderScheduleView, type SyncStatus } from './model.js';
export { ourScheduledBeneficiaries } from './our-beneficiaries.js';
export {
  ProviderScheduleService,
  type ProviderScheduleSource,
  type SyncRun,
} from './provider-schedule-service.js';
export type { ProviderScheduleRecords } from './records.js';
export { DynamoDbProviderScheduleStore } from './store/dynamodb-schedule-store.js';
