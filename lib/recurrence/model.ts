import type { Principal } from '../payouts/model.js';
import type { CreatePayoutRequest } from '../payouts/schemas.js';
import type { RecurrenceRule } from './rules.js';

/** Lifecycle of a recurring payout. Only `active` ones sit in the sweeper's work queue. */
export const RecurrenceStatus = {
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
  /** Skipped on purpose (named skip, or passed over while paused): never paid. */
  Skipped: 'skipped',
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
  readonly createdBy: Principal;
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
  readonly reason?: string;
  readonly recordedAt: string;
}

/** An immutable record of one command on a recurring payout, written in the same transaction as the change. */
export interface RecurrenceAuditEvent {
  readonly recurrenceId: string;
  /** The recurrence version the command produced. */
  readonly sequence: number;
  readonly at: string;
  readonly actor: Principal;
  readonly action: 'created' | 'paused' | 'resumed' | 'cancelled' | 'skipped';
  readonly reason: string;
}
