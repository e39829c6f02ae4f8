import { decodeCursor } from '../../shared/cursor.js';
import { InvalidCursorError } from '../../shared/errors.js';
import * as z from '../../shared/zod.js';
import { keys, TableIndexes } from '../../table/index.js';
import type { ListQuery } from './payout-store.js';

/** Where the next page of a payout listing starts: the month partition walked, and the key within it. */
export interface PayoutListPosition {
  readonly month?: string;
  readonly key?: Record<string, string>;
}

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
/** `<createdAt>#<id>`, the sort key of both listing indexes. */
const LIST_SORT_KEY = /^\d{4}-\d{2}-\d{2}T[0-9:.]{5,18}Z#[0-9A-Za-z]{1,64}$/;

/**
 * Reads a payout listing's cursor, accepting only the exact shape `list` issues for this query: the index's
 * partition is the query's (status) or the cursor's month, the sort key lies inside the query's `from`/`to`,
 * and the month inside the months the listing walks. Anything else is an `InvalidCursorError` (400 `cursor`),
 * never a query DynamoDB refuses with a 500.
 */
export function readPayoutCursor(
  cursor: string | undefined,
  query: ListQuery,
  months: { readonly first: string; readonly last: string },
): PayoutListPosition | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const index = query.status ? TableIndexes.byStatus : TableIndexes.byMonth;
  const from = query.from ?? '0000';
  const to = `${query.to ?? '9999'}\uffff`;
  const key = z.strictObject({
    pk: z.string().check(z.regex(/^PAYOUT#[0-9A-Za-z]{1,64}$/)),
    sk: z.literal('PAYOUT'),
    [index.partitionKey]: query.status
      ? z.literal(keys.statusPartition(query.status))
      : z.string().check(z.regex(/^PAYOUT#MONTH#\d{4}-\d{2}$/)),
    [index.sortKey]: z.string().check(
      z.regex(LIST_SORT_KEY),
      z.refine((sortKey) => sortKey >= from && sortKey <= to),
    ),
  });
  const month = z.string().check(
    z.regex(MONTH),
    z.refine((value) => value >= months.last && value <= months.first),
  );
  const shape = query.status
    ? z.strictObject({ key })
    : z
        .strictObject({ month, key: z.optional(key) })
        .check(
          z.refine(
            (position) =>
              position.key === undefined ||
              position.key[index.partitionKey] === keys.monthPartition(position.month),
          ),
        );
  const position = decodeCursor(cursor, shape);
  if (position === undefined) throw new InvalidCursorError('is not a cursor this listing returned');
  return position;
}
