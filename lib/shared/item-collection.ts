import { type DocumentClient, QueryCommand } from './document-client.js';

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
