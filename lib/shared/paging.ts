/** One page of a cursor-paginated listing (the stores' `list` methods). */
export interface CursorPage<T> {
  readonly items: T[];
  readonly nextCursor?: string;
}

/**
 * Reads a cursor-paginated listing to its end, or to `maxPages` (none by default); `truncated` says the bound
 * stopped it.
 *
 * @example const { items } = await collectPages((cursor) => listing.list({ status: 'scheduled', limit: 100, ...(cursor && { cursor }) }), 10);
 */
export async function collectPages<T>(
  page: (cursor?: string) => Promise<CursorPage<T>>,
  maxPages = Number.POSITIVE_INFINITY,
): Promise<{ items: T[]; truncated: boolean }> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < maxPages; n++) {
    const result = await page(cursor);
    items.push(...result.items);
    cursor = result.nextCursor;
    if (!cursor) return { items, truncated: false };
  }
  return { items, truncated: true };
}
