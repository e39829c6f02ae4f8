import { TableIndexes } from '../table/index.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { type DocumentClient, QueryCommand } from './document-client.js';
import { InvalidCursorError } from './errors.js';
import type { CursorPage } from './paging.js';
import * as z from './zod.js';

/**
 * Listings of one kind of item, newest first, by state (gsi1) or all together (gsi2), for the ops API's list
 * routes. An item takes part by carrying `listingAttributes`; `queryListing` reads a page and issues a cursor
 * that is checked against this listing when it comes back, so a tampered one is a 400, never a DynamoDB error.
 */
export interface Listing {
  /** The gsi1 partition of the items in a state, e.g. `REFUND#STATUS#pending`. */
  readonly statePartition: (state: string) => string;
  /** The gsi2 partition of every item of the kind, e.g. `REFUND#ALL`. */
  readonly allPartition: string;
}

const { byStatus, byMonth: all } = TableIndexes;

/** The index attributes that list an item under its state and under all, ordered by `at` then `id`. */
export function listingAttributes(listing: Listing, state: string, at: string, id: string) {
  const sortKey = `${at}#${id}`;
  return {
    [byStatus.partitionKey]: listing.statePartition(state),
    [byStatus.sortKey]: sortKey,
    [all.partitionKey]: listing.allPartition,
    [all.sortKey]: sortKey,
  };
}

/**
 * The position after a page: the last item's table and index keys. Built on first use (z.lazy): the money
 * handlers load the listings with their stores but never page through one on their path.
 */
const PositionSchema = z.lazy(() => {
  const tableKey = z.string().check(z.regex(/^[\x21-\x7e]{1,200}$/));
  return z.strictObject({
    // Keys as listings write them: DynamoDB answers an empty or oversized start key with a 500, not a 400.
    pk: tableKey,
    sk: tableKey,
    index: z.enum([byStatus.indexName, all.indexName]),
    ipk: z.string(),
    isk: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}T[0-9:.]{5,18}Z#[A-Za-z0-9_-]{1,64}$/)),
  });
});

/**
 * One page of a listing, newest first, of one state or of all.
 *
 * @throws InvalidCursorError when the cursor is not one this listing issued for this state
 */
export async function queryListing<T>(
  doc: DocumentClient,
  tableName: string,
  listing: Listing,
  query: { readonly state?: string; readonly limit: number; readonly cursor?: string },
  parse: (item: Record<string, unknown>) => T,
): Promise<CursorPage<T>> {
  const index = query.state === undefined ? all : byStatus;
  const partition = query.state === undefined ? listing.allPartition : listing.statePartition(query.state);
  let startKey: Record<string, string> | undefined;
  if (query.cursor !== undefined) {
    const position = decodeCursor(query.cursor, PositionSchema);
    if (!position || position.index !== index.indexName || position.ipk !== partition) {
      throw new InvalidCursorError('not a cursor of this listing');
    }
    startKey = {
      pk: position.pk,
      sk: position.sk,
      [index.partitionKey]: position.ipk,
      [index.sortKey]: position.isk,
    };
  }
  const page = await doc.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: index.indexName,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': index.partitionKey },
      ExpressionAttributeValues: { ':pk': partition },
      ScanIndexForward: false,
      Limit: query.limit,
      ...(startKey && { ExclusiveStartKey: startKey }),
    }),
  );
  const items = (page.Items ?? []).map(parse);
  const last = page.LastEvaluatedKey;
  if (!last) return { items };
  return {
    items,
    nextCursor: encodeCursor({
      pk: String(last.pk),
      sk: String(last.sk),
      index: index.indexName,
      ipk: String(last[index.partitionKey]),
      isk: String(last[index.sortKey]),
    }),
  };
}
