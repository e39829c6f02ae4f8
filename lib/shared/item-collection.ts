import { decodeCursor, encodeCursor } from './cursor.js';
import { type Document, type DocumentClient, QueryCommand } from './document-client.js';
import { InvalidCursorError } from './errors.js';
import type { CursorPage } from './paging.js';
import type * as z from './zod.js';

/**
 * Every item of one partition whose sort key starts with `prefix` (an audit trail), in sort-key order, read page
 * after page with consistent reads.
 *
 * @example const events = await readItemCollection(doc, table, `PAYOUT#${id}`, 'AUDIT#', fromAuditItem);
 */
export async function readItemCollection<T>(
  doc: DocumentClient,
  tableName: string,
  partitionKey: string,
  prefix: string,
  parse: (item: Record<string, unknown>) => T,
): Promise<T[]> {
  const items: T[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': partitionKey, ':prefix': prefix },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) items.push(parse(item));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** The cursor of an item collection's page: the last key read (its pk and sk), as `queryCollectionPage` issues it. */
export interface CollectionPosition {
  readonly pk: string;
  readonly sk: string;
}

/**
 * One page of one partition's items in sort-key order, read consistently: those the sort-key condition `sortKey`
 * (with its `values`) takes. The cursor is the last key read, and only one of this partition is taken back.
 *
 * @throws InvalidCursorError (`not a cursor of this <of>`) when the cursor does not fit `cursorShape` or names
 *   another partition
 * @example const page = await queryCollectionPage(doc, table, { partitionKey, sortKey: 'begins_with(sk, :item)', values: { ':item': 'ITEM#' }, cursorShape, of: 'job' }, query, parse);
 */
export async function queryCollectionPage<T>(
  doc: DocumentClient,
  tableName: string,
  collection: {
    readonly partitionKey: string;
    readonly sortKey: string;
    readonly values: Document;
    readonly cursorShape: z.ZodMiniType<CollectionPosition>;
    /** What the partition holds, named when a cursor is refused: `run`, `job`. */
    readonly of: string;
  },
  query: { readonly limit: number; readonly cursor?: string },
  parse: (item: Record<string, unknown>) => T,
): Promise<CursorPage<T>> {
  const pk = collection.partitionKey;
  let startKey: CollectionPosition | undefined;
  if (query.cursor !== undefined) {
    startKey = decodeCursor(query.cursor, collection.cursorShape);
    if (!startKey || startKey.pk !== pk)
      throw new InvalidCursorError(`not a cursor of this ${collection.of}`);
  }
  const page = await doc.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: `pk = :pk AND ${collection.sortKey}`,
      ExpressionAttributeValues: { ':pk': pk, ...collection.values },
      ConsistentRead: true,
      Limit: query.limit,
      ...(startKey && { ExclusiveStartKey: startKey }),
    }),
  );
  const items = (page.Items ?? []).map(parse);
  const last = page.LastEvaluatedKey;
  return last ? { items, nextCursor: encodeCursor({ pk: String(last.pk), sk: String(last.sk) }) } : { items };
}
