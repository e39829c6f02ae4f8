/** Ordering and the pagination block shared by every list endpoint (CONTRACT.md "Pagination"). */

interface Ordered {
  readonly createdAt: Date | string;
  readonly seq?: number;
}

const timeOf = (value: Date | string): number =>
  typeof value === 'string' ? Date.parse(value) : value.getTime();

/** Newest first by `createdAt`, later-created first on ties. Returns a new array. */
export function newestFirst<T extends Ordered>(
  items: readonly T[],
  key: (item: T) => Date | string = (i) => i.createdAt,
): T[] {
  return items
    .map((item, index) => ({ item, index }))
    .sort(
      (a, b) =>
        timeOf(key(b.item)) - timeOf(key(a.item)) || (b.item.seq ?? b.index) - (a.item.seq ?? a.index),
    )
    .map(({ item }) => item);
}

export interface Page<T> {
  readonly items: T[];
  readonly page: number;
  readonly size: number;
  readonly totalRecords: number;
  readonly totalPages: number;
}

/** Slices one page; a page past the end is empty but carries the true totals. */
export function paginate<T>(items: readonly T[], page: number, perPage: number): Page<T> {
  const start = (page - 1) * perPage;
  return {
    items: items.slice(start, start + perPage),
    page,
    size: perPage,
    totalRecords: items.length,
    totalPages: Math.ceil(items.length / perPage),
  };
}

/** The pagination block with `size` (most lists). */
export const block = <T>(p: Page<T>) => ({
  page: p.page,
  size: p.size,
  totalRecords: p.totalRecords,
  totalPages: p.totalPages,
});
