import * as z from 'zod/mini';

const count = z.lazy(() => z.int().check(z.nonnegative()));

/** Pagination block of most lists: `page`, `size`, `totalRecords`, `totalPages`. */
export const sizePagination = { page: count, size: count, totalRecords: count, totalPages: count };
/** Pagination block of the two single-payout lists: `perpage` instead of `size`. */
export const perpagePagination = { page: count, perpage: count, totalRecords: count, totalPages: count };
