import type { WorkQueue } from '../../table/index.js';
import type { AuditEvent, Controls, Payout, PayoutStatus } from '../model.js';
import type { CapChange, TransactItem } from './control-items.js';

export type { CapChange } from './control-items.js';

/** One state change: written only if the payout is still exactly `before`, together with its audit event. */
export interface TransitionWrite {
  readonly before: Payout;
  readonly after: Payout;
  readonly audit: AuditEvent;
  readonly cap?: CapChange;
}

export interface ListQuery {
  readonly status?: PayoutStatus;
  readonly type?: string;
  /** Inclusive bounds on createdAt (ISO 8601). */
  readonly from?: string;
  readonly to?: string;
  readonly limit: number;
  readonly cursor?: string;
}

export interface ListPage {
  readonly items: Payout[];
  readonly nextCursor?: string;
}

/**
 * The creator's claim, committed with the creation: the payout is written already claimed (`submitting`), with
 * the claim's audit event after the creation's and the claim's daily-cap reservation, or not at all.
 */
export interface CreationClaim {
  readonly audit: AuditEvent;
  readonly cap: CapChange;
}

/**
 * Writes of another record that commit in the creation's transaction or not at all: a settlement's decision,
 * which names the payout it pays (lib/settlement/decision-store.ts). Built by that record's own store for the
 * same table; the payout store only adds them to the transaction. When one fails its condition while the key is
 * still free, nothing is written and the create throws CreationCompanionRefusedError.
 */
export interface CreationCompanion {
  readonly items: readonly TransactItem[];
}

export type CreateOutcome =
  | { readonly created: true; readonly payout: Payout }
  | { readonly created: false; readonly existing: Payout };

/**
 * Persistence of payouts behind an interface, so the engine owns the flow and the store owns DynamoDB.
 * Every write is conditional; a lost race surfaces as a typed error, never as a silent overwrite.
 */
export interface PayoutStore {
  /**
   * Creates payout, idempotency key and first audit event atomically, or returns the payout that holds the key.
   * With `claim`, the payout is created claimed in the same transaction; throws DailyCapExceededError (nothing
   * written) when the key is free but the cap would be exceeded. With `companion`, its writes join the
   * transaction (written only when the payout is created, never on a replay of the key).
   */
  create(
    payout: Payout,
    audit: AuditEvent,
    claim?: CreationClaim,
    companion?: CreationCompanion,
  ): Promise<CreateOutcome>;
  /**
   * Resolves once the write asked for just before has left for the database, so that work meant to overlap its
   * round trip (the gateway getting ready for the send) starts then and does not delay it. Optional: without it
   * the engine waits for the event loop's next check phase.
   */
  afterWriteSent?(): Promise<void>;
  get(id: string): Promise<Payout | undefined>;
  /** Applies a transition; throws ConcurrentModificationError or DailyCapExceededError. */
  transition(write: TransitionWrite): Promise<Payout>;
  /**
   * One page of the payouts in `status`, newest first, after `after` (the previous page's `lastKey`). Listings with
   * filters and cursors are `PayoutListing`'s (payout-listing.ts).
   */
  inStatus(
    status: PayoutStatus,
    limit: number,
    after?: Record<string, unknown>,
  ): Promise<{ items: Payout[]; lastKey?: Record<string, unknown> }>;
  /**
   * Payouts in a work queue whose due time is at or before `dueBy`, earliest first; with `after` (the last
   * payout of the previous page, as that page returned it), the page that follows it.
   */
  due(queue: WorkQueue, dueBy: string, limit: number, after?: Payout): Promise<Payout[]>;
  countByStatus(status: PayoutStatus, limit: number, options?: { maxPages?: number }): Promise<number>;
  /** The pause, read strongly consistently; `signal` abandons the read (a bounded re-check before a send). */
  getControls(options?: { signal?: AbortSignal }): Promise<Controls>;
  setControls(controls: Controls): Promise<void>;
  /** The day's reserved total for a source wallet, in kobo. */
  getCapUsage(capKey: string, day: string): Promise<number>;
}
