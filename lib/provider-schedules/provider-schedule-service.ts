import { toKobo } from '../money.js';
import type { RecurrentPayout, ScheduledPayout } from '../provider/schemas/payout.js';
import type { ListAllOptions, PageParams } from '../provider/types.js';
import type { Clock } from '../shared/clock.js';
import { type Logger, silentLogger } from '../shared/logger.js';
import {
  flagEntries,
  type ProviderScheduleEntry,
  type ProviderScheduleKind,
  type ProviderScheduleView,
  type SyncStatus,
} from './model.js';
import type { DynamoDbProviderScheduleStore } from './store.js';

/** What the sync needs of the provider client (`client.payouts`). */
export interface ProviderScheduleSource {
  listAllScheduled(params: PageParams, options?: ListAllOptions): AsyncIterable<ScheduledPayout>;
  listAllRecurrent(params: PageParams, options?: ListAllOptions): AsyncIterable<RecurrentPayout>;
}

export interface ProviderScheduleServiceOptions {
  readonly store: Pick<DynamoDbProviderScheduleStore, 'putAll' | 'list' | 'setSyncStatus' | 'getSyncStatus'>;
  readonly clock: Clock;
  /** Beneficiaries (`bankCode:accountNumber`) with an active schedule on our side. */
  readonly ourBeneficiaries: () => Promise<ReadonlySet<string>>;
  readonly logger?: Logger;
}

const PER_PAGE = 100;
export const DEFAULT_MAX_PAGES = 20;

/**
 * Keeps a read view of the provider's own scheduled and recurrent payouts, so ops see all future money
 * movement in one place, and flags a beneficiary scheduled on both sides.
 *
 * @example
 * await service.sync(client.payouts);         // every 15 minutes
 * const { items } = await service.view('scheduled', 100);
 */
export class ProviderScheduleService {
  readonly #options: ProviderScheduleServiceOptions;
  readonly #logger: Logger;

  constructor(options: ProviderScheduleServiceOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
  }

  /** Walks both provider lists (at most `maxPages` pages each) and upserts every record into the view. */
  async sync(source: ProviderScheduleSource, options: { maxPages?: number } = {}): Promise<SyncStatus> {
    const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
    const syncedAt = this.#options.clock.now().toISOString();
    const scheduled: ProviderScheduleEntry[] = [];
    for await (const record of source.listAllScheduled({ perPage: PER_PAGE }, { maxPages })) {
      scheduled.push(fromScheduled(record, syncedAt));
    }
    const recurrent: ProviderScheduleEntry[] = [];
    for await (const record of source.listAllRecurrent({ perPage: PER_PAGE }, { maxPages })) {
      recurrent.push(fromRecurrent(record, syncedAt));
    }
    await this.#options.store.putAll([...scheduled, ...recurrent]);
    const bound = maxPages * PER_PAGE;
    const status: SyncStatus = {
      lastSyncAt: syncedAt,
      scheduled: scheduled.length,
      recurrent: recurrent.length,
      truncated: scheduled.length >= bound || recurrent.length >= bound,
    };
    await this.#options.store.setSyncStatus(status);
    if (status.truncated)
      this.#logger.warn('provider schedule sync stopped at its page bound', { ...status });
    return status;
  }

  /** The view of one kind, latest first, each entry flagged; `sync` tells how fresh it is. */
  async view(
    kind: ProviderScheduleKind,
    limit: number,
  ): Promise<{ items: ProviderScheduleView[]; sync?: SyncStatus }> {
    const [entries, ours, sync] = await Promise.all([
      this.#options.store.list(kind, limit),
      this.#options.ourBeneficiaries(),
      this.#options.store.getSyncStatus(),
    ]);
    const items = flagEntries(entries, ours, this.#options.clock.now());
    return sync ? { items, sync } : { items };
  }
}

/** What both kinds of provider schedule carry, in the entry's terms (kobo, ISO instants). */
function commonFields(record: ScheduledPayout | RecurrentPayout, syncedAt: string) {
  return {
    id: record.id,
    status: record.status,
    amount: toKobo(record.amount),
    charges: toKobo(record.charges),
    bankCode: record.bankCode,
    bankName: record.bankName,
    accountNumber: record.accountNumber,
    accountName: record.accountName,
    narration: record.narration,
    createdAt: record.createdAt,
    syncedAt,
  };
}

function fromScheduled(record: ScheduledPayout, syncedAt: string): ProviderScheduleEntry {
  return {
    kind: 'scheduled',
    ...commonFields(record, syncedAt),
    startsAt: new Date(record.scheduleDate).toISOString(),
    transactionId: record.transactionId,
  };
}

function fromRecurrent(record: RecurrentPayout, syncedAt: string): ProviderScheduleEntry {
  return {
    kind: 'recurrent',
    ...commonFields(record, syncedAt),
    startsAt: new Date(record.startDate).toISOString(),
    endsAt: new Date(record.endDate).toISOString(),
    interval: record.interval,
  };
}
