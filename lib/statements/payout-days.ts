import type { ListPage, ListQuery } from '../payouts/index.js';
import { daysWindow } from './day.js';

/** What lists our payouts by creation time (the ops API's listing, `PayoutListing`, on the `gsi2` month index). */
export interface PayoutLister {
  list(query: ListQuery): Promise<ListPage>;
}

/**
 * Our payouts created on whole calendar days of the statement's zone, newest first, page by page: the payout
 * export (`GET /payouts/export.csv`) and the payout totals of a daily statement read the same days the same way,
 * so a day's export sums to that day's totals. Reads the month index, never the table as a whole.
 *
 * @example const { items, nextCursor } = await new PayoutDays(listing, 'Africa/Lagos').page({ from: '2026-03-01', to: '2026-03-31', limit: 500 });
 */
export class PayoutDays {
  constructor(
    private readonly listing: PayoutLister,
    readonly timeZone: string,
  ) {}

  /** One page of the payouts created from the start of `from` to the end of `to` (`YYYY-MM-DD`, inclusive). */
  page(range: {
    readonly from: string;
    readonly to: string;
    readonly limit: number;
    readonly cursor?: string;
  }): Promise<ListPage> {
    const window = daysWindow(range.from, range.to, this.timeZone);
    return this.listing.list({
      from: window.from,
      to: window.to,
      limit: range.limit,
      ...(range.cursor !== undefined && { cursor: range.cursor }),
    });
  }
}
