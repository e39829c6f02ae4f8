import type { Approval, Principal, Rejection } from '../controls/index.js';
import type { CreatePayoutRequest } from '../payouts/index.js';
import type { RecurrenceRule } from './rules.js';

/** Lifecycle of a recurring payout. Only `active` ones sit in the sweeper's work queue. */
export const RecurrenceStatus = {
  /**
   * At or above the approval threshold: nothing is materialised until a second person approves the rule
   * (`POST /recurring-payouts/{id}/approve`).
   */
  PendingApproval: 'pending_approval',
  Active: 'active',
  Paused: 'paused',
  Cancelled: 'cancelled',
  /** Past its `endDate` or `maxOccurrences`: nothing left to pay. */
  Completed: 'completed',
} as const;
export type RecurrenceStatus = (typeof RecurrenceStatus)[keyof typeof RecurrenceStatus];
export const RECURRENCE_STATUSES = Object.values(RecurrenceStatus) as readonly RecurrenceStatus[];

/** What became of one occurrence. The payout's own status tells whether it was paid, missed or failed. */
export const OccurrenceState = {
  /** A payout exists for it (its key is `<recurrenceId>:<localDate>`). */
  Materialised: 'materialised',
  /** Skipped on purpose (named skip, passed over while paused or before approval, cancelled): never paid. */
  Skipped: 'skipped',
  /**
   * Its payout was cancelled by a pause before its time. Decided at resume: materialised again (a new
   * generation, so a new payout key) when its time is after the resume, recorded as skipped otherwise.
   */
  Held: 'held',
} as const;
export type OccurrenceState = (typeof OccurrenceState)[keyof typeof OccurrenceState];

/** A payout template without a time of its own: each occurrence adds its `scheduleAt`. */
export type PayoutTemplate = Omit<CreatePayoutRequest, 'scheduleAt'>;

export interface Recurrence {
  readonly id: string;
  readonly status: RecurrenceStatus;
  readonly rule: RecurrenceRule;
  readonly template: CreatePayoutRequest;
  readonly idempotencyKey: string;
  readonly requestFingerprint: string;
  /** Index (in the rule) of the next occurrence to materialise. */
  readonly nextIndex: number;
  /** UTC instant of that occurrence; absent once the rule has no more. */
  readonly nextOccurrenceAt?: string;
  readonly nextLocalDate?: string;
  /** Local dates named for skipping that were not yet materialised. */
  readonly skippedDates: readonly string[];
  /** Incremented on every write; writes are conditional on it. */
  readonly version: number;
  /** The person who created the rule: every occurrence is requested by them. */
  readonly createdBy: Principal;
  /** The second person who approved a rule at or above the approval threshold; carried onto each occurrence. */
  readonly approvedBy?: Principal;
  /** The first of two approvals (at or above the second-approval threshold): it waits for a second approver. */
  readonly firstApproval?: Approval;
  /** A second person's refusal while it waited for approval: the rule is `cancelled`, none of it ever paid. */
  readonly rejection?: Rejection;
  readonly statusReason?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** The history entry of one occurrence (`sk = OCCURRENCE#<localDate>`). */
export interface OccurrenceRecord {
  readonly recurrenceId: string;
  readonly localDate: string;
  readonly index: number;
  readonly at: string;
  readonly state: OccurrenceState;
  readonly payoutId?: string;
  /**
   * Which payout of the occurrence `payoutId` is: 1 (absent) for the first, one more each time a pause
   * cancelled it and a resume materialised it again. Part of the payout key from 2 on.
   */
  readonly generation?: number;
  readonly reason?: string;
  readonly recordedAt: string;
}

export const RECURRENCE_ACTIONS = [
  'created',
  'approved',
  'rejected',
  'paused',
  'resumed',
  'cancelled',
  'skipped',
] as const;
export type RecurrenceAction = (typeof RECURRENCE_ACTIONS)[number];

/** An immutable record of one command on a recurring payout, written in the same transaction as the change. */
export interface RecurrenceAuditEvent {
  readonly recurrenceId: string;
  /**
   * The recurrence version the command produced; for a command's provisional event (CommandAuditEvent), the version
   * it read, which it did not change.
   */
  readonly sequence: number;
  readonly at: string;
  readonly actor: Principal;
  readonly action: RecurrenceAction;
  readonly reason: string;
}

/**
 * A command's audit event as it is written, tied to its invocation by `commandId` (stored, never shown). A command
 * that changes occurrence records before its own write of the recurrence (a pause's holds, a skip, the occurrences
 * a resume, approval or cancellation records as skipped) writes a provisional event with the first of them, in the
 * same transaction (lib/recurrence/command-audit.ts); its own event, with the same `commandId`, supersedes it when
 * the command commits. A command that never does (409 after its retries, or cut off) leaves the provisional event
 * in the trail: no occurrence record changes without an audit event naming who changed it.
 */
export interface CommandAuditEvent extends RecurrenceAuditEvent {
  readonly commandId: string;
}

/**
 * One event of a recurrence's audit trail as it is read (RecurrenceStore.audit). `committed` is false for a
 * command's provisional event that no event of its own superseded (CommandAuditEvent): the command changed the
 * occurrence records the history shows, but its own write of the recurrence never committed (409 after its
 * retries, or cut off by the request's deadline) or, while it still runs, has not yet. True for every other
 * event. A field rather than the wording of `reason`, so that a reader, a script or the CLI can tell without
 * parsing text (which an answer may clip).
 */
export interface RecurrenceTrailEvent extends RecurrenceAuditEvent {
  readonly committed: boolean;
}
