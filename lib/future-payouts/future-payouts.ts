import { type GateLimits, reachesApprovalThreshold } from '../controls/index.js';
import type {
  Beneficiary,
  CreatePayoutRequest,
  Payout,
  PayoutLedger,
  PayoutListing,
} from '../payouts/index.js';
import {
  beneficiaryKey,
  type ProviderScheduleService,
  type ProviderScheduleView,
  type SyncStatus,
} from '../provider-schedules/index.js';
import {
  occurrences,
  type Recurrence,
  type RecurrenceService,
  RecurrenceStatus,
} from '../recurrence/index.js';
import { collectPages } from '../shared/paging.js';

/** Where a future money movement is planned. */
export const FutureSource = {
  ScheduledPayout: 'scheduled_payout',
  RecurringPayout: 'recurring_payout',
  ProviderScheduled: 'provider_scheduled',
  ProviderRecurrent: 'provider_recurrent',
} as const;
export type FutureSource = (typeof FutureSource)[keyof typeof FutureSource];

export interface FutureMovement {
  readonly source: FutureSource;
  /** Our payout or recurrence id, or the provider's record id. */
  readonly id: string;
  /** When the money moves; for a provider recurrent payout, the next instant it is active from. */
  readonly at: string;
  readonly amountKobo: number;
  readonly type?: string;
  readonly narration: string | null;
  readonly beneficiary: Beneficiary | null;
  /** The recurrence's local date (the occurrence's idempotency key), or the provider's interval. */
  readonly detail?: string;
  /** The same bank account has money planned on both our side and the provider's. */
  readonly bothSides: boolean;
  /**
   * No money moves until a second person approves: a recurring payout still in `pending_approval`, or one of
   * ours at or above the approval threshold that nobody approved yet (it will wait in `pending_approval` at
   * its time). Never true on the provider's side, which has no approval here.
   */
  readonly awaitsApproval: boolean;
}

/** Where a page of the view ends: its last movement's sort key. */
export interface FuturePosition {
  readonly at: string;
  readonly source: FutureSource;
  readonly id: string;
  readonly detail: string;
}

/** The most movements one answer lists (the default page): the rest is read page by page with `nextCursor`. */
export const FUTURE_PAGE_MAX = 500;

export interface FutureMovementView {
  readonly from: string;
  readonly to: string;
  /** At most `limit` (at most FUTURE_PAGE_MAX) movements, earliest first, after `after`. */
  readonly items: FutureMovement[];
  /** Where the next page starts; absent on the last page. */
  readonly next?: FuturePosition;
  /** Movements in the whole window with the same bank account planned on both sides (every page, not this one). */
  readonly bothSides: number;
  /** How fresh the provider side is (the read view is synchronised on a schedule). */
  readonly providerSync?: SyncStatus;
  /** True when a bound stopped a walk, so the list may be incomplete. */
  readonly truncated: boolean;
}

export interface FutureMovementSources {
  /** The clock and the limits (the engine's context). */
  readonly ledger: Pick<PayoutLedger, 'ctx'>;
  readonly payouts: Pick<PayoutListing, 'list'>;
  readonly recurrences: Pick<RecurrenceService, 'list'>;
  readonly providerSchedules: Pick<ProviderScheduleService, 'view'>;
}

const PAGE = 100;
const MAX_PAGES = 10;
const PROVIDER_LIMIT = 500;

type Draft = Omit<FutureMovement, 'bothSides'> & { readonly side: 'ours' | 'provider' };

/** The recurrences listed: active ones, and those waiting for approval (flagged `awaitsApproval`). */
const LISTED_RECURRENCE_STATUSES = [RecurrenceStatus.Active, RecurrenceStatus.PendingApproval] as const;

/**
 * All future money movement in one place, earliest first: our scheduled payouts, the coming occurrences of our
 * recurring payouts, and the provider's own scheduled and recurrent payouts, with a flag where one bank account
 * is paid on both sides (a likely double payment to look at).
 *
 * @example const view = await futureMoneyMovement(sources, { days: 30 });
 */
export async function futureMoneyMovement(
  sources: FutureMovementSources,
  options: { days: number; limit?: number; after?: FuturePosition },
): Promise<FutureMovementView> {
  const now = sources.ledger.ctx.clock.now();
  const to = new Date(now.getTime() + options.days * 86_400_000);
  const limits = sources.ledger.ctx.config;
  const [payouts, recurrences, providerScheduled, providerRecurrent] = await Promise.all([
    scheduledPayouts(sources.payouts),
    listedRecurrences(sources.recurrences),
    sources.providerSchedules.view('scheduled', PROVIDER_LIMIT),
    sources.providerSchedules.view('recurrent', PROVIDER_LIMIT),
  ]);
  const inWindow = (at: string) => at >= now.toISOString() && at <= to.toISOString();

  const drafts: Draft[] = [
    ...payouts.items.filter((p) => p.scheduleAt && inWindow(p.scheduleAt)).map((p) => fromPayout(p, limits)),
    ...recurrences.items.flatMap((r) => fromRecurrence(r, now, to, limits)),
    ...providerScheduled.items.filter((e) => e.upcoming && inWindow(e.startsAt)).map(fromProvider),
    ...providerRecurrent.items
      .filter((e) => e.upcoming && e.startsAt <= to.toISOString())
      .map((e) =>
        fromProvider({ ...e, startsAt: e.startsAt > now.toISOString() ? e.startsAt : now.toISOString() }),
      ),
  ];
  const keysBySide = { ours: new Set<string>(), provider: new Set<string>() };
  for (const draft of drafts) {
    if (draft.beneficiary)
      keysBySide[draft.side].add(beneficiaryKey(draft.beneficiary.bankCode, draft.beneficiary.accountNumber));
  }
  const items = drafts
    .map(({ side, ...movement }) => {
      const key =
        movement.beneficiary &&
        beneficiaryKey(movement.beneficiary.bankCode, movement.beneficiary.accountNumber);
      const other = side === 'ours' ? keysBySide.provider : keysBySide.ours;
      return { ...movement, bothSides: key !== null && other.has(key) };
    })
    .sort((a, b) => compare(positionOf(a), positionOf(b)));
  const after = options.after;
  const rest = after ? items.filter((item) => compare(positionOf(item), after) > 0) : items;
  const limit = Math.min(options.limit ?? FUTURE_PAGE_MAX, FUTURE_PAGE_MAX);
  const page = rest.slice(0, limit);
  const last = page.at(-1);
  return {
    from: now.toISOString(),
    to: to.toISOString(),
    items: page,
    ...(rest.length > page.length && last && { next: positionOf(last) }),
    bothSides: items.filter((item) => item.bothSides).length,
    ...(providerScheduled.sync && { providerSync: providerScheduled.sync }),
    truncated: payouts.truncated || recurrences.truncated,
  };
}

/** A movement's place in the view: by instant, then source, id and local date, so pages never skip or repeat one. */
const positionOf = (item: FutureMovement): FuturePosition => ({
  at: item.at,
  source: item.source,
  id: item.id,
  detail: item.detail ?? '',
});

function compare(a: FuturePosition, b: FuturePosition): number {
  for (const key of ['at', 'source', 'id', 'detail'] as const) {
    if (a[key] !== b[key]) return a[key] < b[key] ? -1 : 1;
  }
  return 0;
}

function scheduledPayouts(payouts: FutureMovementSources['payouts']) {
  return collectPages(
    (cursor) => payouts.list({ status: 'scheduled', limit: PAGE, ...(cursor && { cursor }) }),
    MAX_PAGES,
  );
}

async function listedRecurrences(recurrences: FutureMovementSources['recurrences']) {
  const pages = await Promise.all(
    LISTED_RECURRENCE_STATUSES.map((status) =>
      collectPages(
        (cursor) => recurrences.list({ status, limit: PAGE, ...(cursor && { cursor }) }),
        MAX_PAGES,
      ),
    ),
  );
  return { items: pages.flatMap((page) => page.items), truncated: pages.some((page) => page.truncated) };
}

function beneficiaryOf(request: CreatePayoutRequest | Payout['instruction']): Beneficiary | null {
  return 'beneficiary' in request ? request.beneficiary : null;
}

function fromPayout(payout: Payout, limits: GateLimits): Draft {
  return {
    awaitsApproval: reachesApprovalThreshold(limits, payout.amountKobo) && !payout.approvedBy,
    side: 'ours',
    source: FutureSource.ScheduledPayout,
    id: payout.id,
    at: payout.scheduleAt ?? payout.createdAt,
    amountKobo: payout.amountKobo,
    type: payout.instruction.type,
    narration: payout.narration,
    beneficiary: beneficiaryOf(payout.instruction),
  };
}

/** The recurrence's coming occurrences in the window, minus skipped dates; materialised ones are listed as payouts. */
function fromRecurrence(recurrence: Recurrence, from: Date, to: Date, limits: GateLimits): Draft[] {
  const awaitsApproval =
    recurrence.status === RecurrenceStatus.PendingApproval ||
    (reachesApprovalThreshold(limits, recurrence.template.amount) && !recurrence.approvedBy);
  return occurrences(recurrence.rule, { fromIndex: recurrence.nextIndex, from, to, limit: 400 })
    .filter((occurrence) => !recurrence.skippedDates.includes(occurrence.localDate))
    .map((occurrence) => ({
      side: 'ours' as const,
      source: FutureSource.RecurringPayout,
      awaitsApproval,
      id: recurrence.id,
      at: occurrence.at,
      amountKobo: recurrence.template.amount,
      type: recurrence.template.type,
      narration: recurrence.template.narration,
      beneficiary: beneficiaryOf(recurrence.template),
      detail: occurrence.localDate,
    }));
}

function fromProvider(entry: ProviderScheduleView): Draft {
  return {
    side: 'provider',
    source: entry.kind === 'scheduled' ? FutureSource.ProviderScheduled : FutureSource.ProviderRecurrent,
    awaitsApproval: false,
    id: entry.id,
    at: entry.startsAt,
    amountKobo: entry.amount,
    type: 'bank_transfer',
    narration: entry.narration,
    beneficiary: {
      bankCode: entry.bankCode,
      accountNumber: entry.accountNumber,
      accountName: entry.accountName ?? '',
    },
    ...(entry.interval && { detail: entry.interval }),
  };
}
