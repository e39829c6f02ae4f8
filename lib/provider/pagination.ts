import type { ListAllOptions, Page, PageParams, Pagination, RawPagination, RequestOptions } from './types.js';

export const DEFAULT_MAX_PAGES = 100;

/** Normalises `size` / `perpage` into `perPage`, keeping the raw block. */
export function normalizePagination(raw: RawPagination): Pagination {
  const perPage = raw.size ?? raw.perpage ?? 0;
  const block: RawPagination = { page: raw.page, totalRecords: raw.totalRecords, totalPages: raw.totalPages };
  if (raw.size !== undefined) block.size = raw.size;
  if (raw.perpage !== undefined) block.perpage = raw.perpage;
  return { page: raw.page, perPage, totalRecords: raw.totalRecords, totalPages: raw.totalPages, raw: block };
}

/** Builds a `Page` from a parsed envelope whose data holds the pagination block and the list. */
export function toPage<TItems extends unknown[], TData extends RawPagination>(
  envelope: { message?: string | undefined; data: TData },
  items: TItems,
): Page<TItems[number], TData> {
  return {
    message: envelope.message,
    data: envelope.data,
    items,
    pagination: normalizePagination(envelope.data),
  };
}

/**
 * Iterates the items of every page, fetching lazily. Bounded: stops after `maxPages` pages, at the
 * provider's `totalPages`, and on the first empty page.
 *
 * @example
 * for await (const settlement of autoPage((page) => client.settlements.list({ page, perPage: 100 }), { maxPages: 50 })) {
 *   console.log(settlement.id);
 * }
 */
export async function* autoPage<TItem>(
  fetchPage: (page: number) => Promise<Page<TItem>>,
  options: { startPage?: number; maxPages?: number } = {},
): AsyncGenerator<TItem, void, undefined> {
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  let page = options.startPage ?? 1;
  for (let fetched = 0; fetched < maxPages; fetched += 1) {
    const result = await fetchPage(page);
    if (result.items.length === 0) return;
    yield* result.items;
    if (result.pagination.page >= result.pagination.totalPages) return;
    page += 1;
  }
}

/** Wires a one-page `list` method into its `listAll` form. */
export function listAllOf<TParams extends PageParams, TItem>(
  list: (params: TParams, options?: RequestOptions) => Promise<Page<TItem>>,
  params: TParams,
  options: ListAllOptions = {},
): AsyncGenerator<TItem, void, undefined> {
  const { maxPages, ...requestOptions } = options;
  return autoPage((page) => list({ ...params, page }, requestOptions), {
    startPage: params.page ?? 1,
    ...(maxPages === undefined ? {} : { maxPages }),
  });
}
