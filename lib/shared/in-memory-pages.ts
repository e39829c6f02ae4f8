import { InvalidCursorError } from './errors.js';
import type { CursorPage } from './paging.js';

/**
 * One page of `items` in the order given, for the in-memory stores of unit tests: the cursor is the offset of the
 * next page, and one this function did not issue is refused as a table listing refuses it.
 *
 * @example const page = pageOf(newestFirst, { limit: 20, cursor });
 * @throws InvalidCursorError
 */
export function pageOf<T>(items: readonly T[], query: { limit: number; cursor?: string }): CursorPage<T> {
  const start = query.cursor === undefined ? 0 : offsetOf(query.cursor);
  const page = items.slice(start, start + query.limit);
  const next = start + page.length;
  return { items: page, ...(next < items.length && { nextCursor: `offset:${next}` }) };
}

/** Newest first by `at`, then by `id` (the order of the table's listings: `${at}#${id}`, descending). */
export function newestFirst<T>(items: readonly T[], at: (item: T) => string, id: (item: T) => string): T[] {
  const key = (item: T) => `${at(item)}#${id(item)}`;
  return [...items].sort((a, b) => (key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0));
}

function offsetOf(cursor: string): number {
  const match = /^offset:(\d+)$/.exec(cursor);
  if (!match) throw new InvalidCursorError('not a cursor of this listing');
  return Number(match[1]);
}
