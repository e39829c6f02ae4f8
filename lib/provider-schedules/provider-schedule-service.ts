import { toKobo } from '../money.js';
import type { PageParams, RecurrentPayout, RequestOptions, ScheduledPayout } from '../provider/index.js';
import type { Clock } from '../shared/clock.js';
import { withinDeadline } from '../shared/deadline.js';
import { type Logger, silentLogger } from '../shared/logger.js';
import {
  flagEntries,
  type ProviderScheduleEntry,
  type ProviderScheduleKind,
  type ProviderScheduleView,
  type SyncCursor,
  type SyncStatus,
} from './model.js';
import type { ProviderScheduleRecords } from './records.js';

/** One page of a provider list, as the provider client answers it. */
export interface ProviderSchedulePage<T> {
  readonly items: readonly T[];
  readonly pagination: { readonly totalPages: number };
}

/** What the sync needs of the provider client (`client.payouts`): one page of each list at a time. */
export interface ProviderScheduleSource {
  listScheduled(params: PageParams, options?: RequestOptions): Promise<ProviderSchedulePage<ScheduledPayout>>;
  listRecurrent(params: PageParams, options?: RequestOptions): Promise<ProviderSchedulePage<RecurrentPayout>>;
}

export interface ProviderScheduleServiceOptions {
  readonly store: ProviderScheduleRecords;
  readonly clock: Clock;
  /** Beneficiaries (`bankCode:accountNumber`) with an active schedule on our side. */
  readonly ourBeneficiaries: () => Promise<ReadonlySet<string>>;
  readonly logger?: Logger;
}

/** What one run of the sync did: the counts so far, and whether the sync finished or resumes next run. */
export type SyncRun = SyncStatus & { readonly complete: boolean };

const PER_PAGE = 100;
export const DEFAULT_MAX_PAGES = 20;
/** One page read from the provider (every attempt and retry of it) is abandoned after this long. */
export const SYNC_PAGE_READ_DEADLINE_MS = 15_000;
/** One page's upserts (four BatchWriteItem calls and their retries) are abandoned after this long. */
export const SYNC_PAGE_WRITE_DEADLINE_MS = 15_000;

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

  /**
   * Walks both provider lists (at most `maxPages` pages each) page by page and upserts each page into the view.
   * With `stopStartingAt`, no page starts after it: the sync records where it stopped (a cursor in the table,
   * also written after every page, so a crash loses at most one page's work) and the next run goes on from
   * there. The sync status (`lastSyncAt`, what the API shows) changes only when a sync finishes.
   */
  async sync(
    source: ProviderScheduleSource,
    options: { maxPages?: number; stopStartingAt?: number; now?: () => number } = {},
  ): Promise<SyncRun> {
    const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
    const now = options.now ?? Date.now;
    const { store } = this.#options;
    let cursor: SyncCursor = (await store.getCursor()) ?? {
      kind: 'scheduled',
      page: 1,
      syncedAt: this.#options.clock.now().toISOString(),
      scheduled: 0,
      recurrent: 0,
      truncated: false,
    };
    for (;;) {
      if (options.stopStartingAt !== undefined && now() >= options.stopStartingAt) {
        this.#logger.info('provider schedule sync stopped before the deadline; the next run resumes it', {
          kind: cursor.kind,
          page: cursor.page,
        });
        return { ...statusOf(cursor), complete: false };
      }
      const next = await this.#syncPage(source, cursor, maxPages);
      cursor = next.cursor;
      if (next.done) break;
      await store.setCursor(cursor);
    }
    const status = statusOf(cursor);
    await Promise.all([store.setSyncStatus(status), store.setCursor(undefined)]);
    if (status.truncated)
      this.#logger.warn('provider schedule sync stopped at its page bound', { ...status });
    return { ...status, complete: true };
  }

  /** Reads and upserts the cursor's page; answers the cursor after it, and whether the sync is done. */
  async #syncPage(
    source: ProviderScheduleSource,
    cursor: SyncCursor,
    maxPages: number,
  ): Promise<{ cursor: SyncCursor; done: boolean }> {
    const params = { page: cursor.page, perPage: PER_PAGE };
    const { syncedAt } = cursor;
    const page =
      cursor.kind === 'scheduled'
        ? await withinDeadline(SYNC_PAGE_READ_DEADLINE_MS, async (signal) => {
            const { items, pagination } = await source.listScheduled(params, { signal });
            return { entries: items.map((record) => fromScheduled(record, syncedAt)), pagination };
          })
        : await withinDeadline(SYNC_PAGE_READ_DEADLINE_MS, async (signal) => {
            const { items, pagination } = await source.listRecurrent(params, { signal });
            return { entries: items.map((record) => fromRecurrent(record, syncedAt)), pagination };
          });
    await withinDeadline(SYNC_PAGE_WRITE_DEADLINE_MS, (signal) =>
      this.#options.store.putAll(page.entries, { signal }),
    );
    const counted = {
      ...cursor,
      [cursor.kind]: cursor[cursor.kind] + page.entries.length,
    };
    const last = page.entries.length === 0 || cursor.page >= page.pagination.totalPages;
    if (!last && cursor.page < maxPages)
      return { cursor: { ...counted, page: cursor.page + 1 }, done: false };
    // The page bound stopped this list before the provider's last page.
    const truncated = counted.truncated || !last;
    if (cursor.kind === 'scheduled')
      return { cursor: { ...counted, truncated, kind: 'recurrent', page: 1 }, done: false };
    return { cursor: { ...counted, truncated }, done: true };
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

function statusOf(cursor: SyncCursor): SyncStatus {
  return {
    lastSyncAt: cursor.syncedAt,
    scheduled: cursor.scheduled,
    recurrent: cursor.recurrent,
    truncated: cursor.truncated,
  };
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
