import * as z from 'zod/mini';

const count = z.lazy(() => z.int().check(z.nonnegative()));

/** Pagination block of most lists: `page`, `size`, `totalRecords`, `totalPages`. */
export const sizePagination = { page: count, size: count, totalRecords: count, totalPages: count };
/** Pagination block of the two single-payout lists: `perpage` instead of `size`. */
export const perpagePagination = { page: count, perpage: count, totalRecords: count, totalPages: count };

/**
 * The `data` of a list endpoint, built on first use: its fields (the pagination block, and the aggregates some
 * lists carry), then the items under `key`.
 *
 * @example export const storeListData = listData({ ...sizePagination, totalStoreBalance: amount }, 'stores', storeSchema);
 */
export function listData<Fields extends z.core.$ZodLooseShape, K extends string, Item extends z.ZodMiniType>(
  fields: Fields,
  key: K,
  item: Item,
) {
  return z.lazy(() =>
    z.looseObject({ ...fields, ...({ [key]: z.array(item) } as { [key in K]: z.ZodMiniArray<Item> }) }),
  );
}
