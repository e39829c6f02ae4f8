import type { GateLimits, Principal } from '../controls/index.js';
import type { CreatePayoutCommand, CreatePayoutResult, Payout } from '../payouts/index.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import type { RecurrenceStore } from './store/recurrence-store.js';

/** What the recurrence module needs of the payout engine (PayoutEngine satisfies it). */
export interface PayoutPort {
  create(command: CreatePayoutCommand): Promise<CreatePayoutResult>;
  cancel(id: string, actor: Principal, reason?: string): Promise<Payout>;
  get(id: string): Promise<Payout | undefined>;
}

export interface RecurrenceConfig {
  /** Occurrences due within this much of now are materialised as `scheduled` payouts (must exceed the tick). */
  readonly horizonMs: number;
  /** Most occurrences one recurrence materialises in one tick (bounds catch-up after an outage). */
  readonly maxOccurrencesPerTick: number;
  /** How many upcoming occurrences `view` shows. */
  readonly upcomingShown: number;
  /** How many history entries `view` shows, newest first. */
  readonly historyShown: number;
}

export const defaultRecurrenceConfig: RecurrenceConfig = {
  horizonMs: 10 * 60_000,
  maxOccurrencesPerTick: 50,
  upcomingShown: 5,
  historyShown: 50,
};

export interface RecurrenceContext {
  readonly store: RecurrenceStore;
  readonly payouts: PayoutPort;
  /** The engine's per-payout maximum and approval threshold, for the control gate. */
  readonly limits: GateLimits;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly config: RecurrenceConfig;
}
