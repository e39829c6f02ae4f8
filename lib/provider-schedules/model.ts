/** The provider's own single scheduled and recurrent payouts, as copied into our table for ops. */

export const ProviderScheduleKind = { Scheduled: 'scheduled', Recurrent: 'recurrent' } as const;
export type ProviderScheduleKind = (typeof ProviderScheduleKind)[keyof typeof ProviderScheduleKind];

export interface ProviderScheduleEntry {
  readonly kind: ProviderScheduleKind;
  readonly id: string;
  /** The provider's status as it sends it (`DISPATCHED`, `CANCELLED`, …). */
  readonly status: string;
  /** Integer kobo (the provider sends naira). */
  readonly amount: number;
  readonly charges: number;
  readonly bankCode: string;
  readonly bankName: string;
  readonly accountNumber: string;
  readonly accountName: string | null;
  readonly narration: string | null;
  /** Scheduled: its `scheduleDate`. Recurrent: its `startDate`. */
  readonly startsAt: string;
  /** Recurrent only. */
  readonly endsAt?: string;
  /** Recurrent only, as the provider names it (`Daily`, …). */
  readonly interval?: string;
  readonly transactionId?: string | null;
  readonly createdAt: string;
  readonly syncedAt: string;
}

/** An entry as the ops API shows it: with whether it still moves money and whether we pay the same account. */
export interface ProviderScheduleView extends ProviderScheduleEntry {
  /** Not cancelled and with a date still ahead. */
  readonly upcoming: boolean;
  /** The same beneficiary (bank code + account number) also has an active schedule on our side. */
  readonly alsoScheduledHere: boolean;
}

export interface SyncStatus {
  readonly lastSyncAt: string;
  readonly scheduled: number;
  readonly recurrent: number;
  /** True when the page bound stopped the walk before the provider's last page. */
  readonly truncated: boolean;
}

/**
 * Where an unfinished sync resumes: the list and page to read next, and what the sync counted so far. A sync
 * that stops before its deadline leaves it in the table; the next run goes on from there.
 */
export interface SyncCursor {
  readonly kind: ProviderScheduleKind;
  readonly page: number;
  /** When this sync started: every entry it copies carries it (and its TTL counts from it). */
  readonly syncedAt: string;
  readonly scheduled: number;
  readonly recurrent: number;
  readonly truncated: boolean;
}

/** `bankCode:accountNumber`, the identity of a beneficiary across both sides. */
export const beneficiaryKey = (bankCode: string, accountNumber: string): string =>
  `${bankCode}:${accountNumber}`;

/**
 * Marks the entries that still move money and those whose beneficiary we also pay on a schedule.
 *
 * @example flagEntries(entries, new Set(['058:0123456789']), new Date())
 */
export function flagEntries(
  entries: readonly ProviderScheduleEntry[],
  ours: ReadonlySet<string>,
  now: Date,
): ProviderScheduleView[] {
  const at = now.toISOString();
  return entries.map((entry) => {
    const live = entry.status.toUpperCase() !== 'CANCELLED';
    const upcoming =
      live &&
      (entry.kind === ProviderScheduleKind.Scheduled
        ? entry.startsAt >= at && entry.status.toUpperCase() !== 'DISPATCHED'
        : (entry.endsAt ?? entry.startsAt) >= at);
    return {
      ...entry,
      upcoming,
      alsoScheduledHere: upcoming && ours.has(beneficiaryKey(entry.bankCode, entry.accountNumber)),
    };
  });
}
