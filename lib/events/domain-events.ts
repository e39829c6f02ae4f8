import {
  APPROVAL_DECIDED_EVENT,
  APPROVAL_REQUESTED_EVENT,
  type ApprovalEvent,
  approvalEventOf,
} from './domain-events/approvals.js';
import { type DomainEvent, domainEventOf } from './domain-events/payout-outcomes.js';
import { type PayoutRunEvent, payoutRunEventOf, RUN_EVENT_TYPES } from './domain-events/run-ends.js';
import {
  STATEMENT_MISMATCH_EVENT,
  type StatementMismatchEvent,
  statementMismatchOf,
} from './domain-events/statement-mismatch.js';
import type { PayoutStreamRecord } from './domain-events/stream-record.js';

/*
 * The events this project publishes, one file a family in domain-events/: a payout's outcome, a statement's
 * finding, a run's end, an instruction waiting for a second person; each translated from the table change that
 * records it (the stream). This file is their one door inside the room, and what every one of them shares.
 */

export * from './domain-events/approvals.js';
export { DOMAIN_EVENT_MAXIMA } from './domain-events/event-fields.js';
export * from './domain-events/payout-outcomes.js';
export * from './domain-events/run-ends.js';
export * from './domain-events/statement-mismatch.js';
export type { PayoutStreamRecord } from './domain-events/stream-record.js';

/** The EventBridge `source` of every domain event this project publishes. */
export const DOMAIN_EVENT_SOURCE = 'merchant.payouts.engine';

/** Every event this project publishes to its bus. */
export type PublishedEvent = DomainEvent | StatementMismatchEvent | ApprovalEvent | PayoutRunEvent;

/** Whether a published event is a payout's outcome (not a statement's finding, an approval's nor a run's end). */
export const isPayoutEvent = (event: PublishedEvent): event is DomainEvent =>
  event.detailType !== STATEMENT_MISMATCH_EVENT &&
  event.detailType !== APPROVAL_REQUESTED_EVENT &&
  event.detailType !== APPROVAL_DECIDED_EVENT &&
  !RUN_EVENT_TYPES.has(event.detailType);

/** Whether a published event is a run's end. */
export const isPayoutRunEvent = (event: PublishedEvent): event is PayoutRunEvent =>
  RUN_EVENT_TYPES.has(event.detailType);

/**
 * The event a table change publishes, if any: a payout's outcome, a statement's finding, an instruction that
 * began or stopped waiting for a second person, or a run's end.
 */
export function publishedEventOf(record: PayoutStreamRecord): PublishedEvent | undefined {
  return (
    domainEventOf(record) ??
    statementMismatchOf(record) ??
    approvalEventOf(record) ??
    payoutRunEventOf(record)
  );
}
