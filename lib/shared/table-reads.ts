import { TableIndexes } from '../table/index.js';
import {
  type Document,
  type DocumentClient,
  GetCommand,
  type QueryCommandInput,
  type SendOptions,
} from './document-client.js';

/**
 * The item at `key`, read consistently (a write a moment ago, by another trigger or writer, counts); undefined
 * when there is none. `sendOptions` carries a signal that abandons the read.
 *
 * @example const item = await readItem(doc, table, jobKeys.job(jobId));
 */
export async function readItem(
  doc: DocumentClient,
  tableName: string,
  key: { readonly pk: string; readonly sk: string },
  sendOptions?: SendOptions,
): Promise<Document | undefined> {
  const { Item } = await doc.send(
    new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
    sendOptions,
  );
  return Item;
}

/**
 * The query of one work-queue partition (gsi3) for what is due by `dueBy`, earliest first: its items sort by
 * `<dueAt>#<id>`, so everything due at `dueBy` itself is taken. A store adds its `ExclusiveStartKey` to page on.
 *
 * @example const page = await doc.send(new QueryCommand(dueWorkQuery(table, 'REFUND#WORK', now, 50)));
 */
export function dueWorkQuery(
  tableName: string,
  partition: string,
  dueBy: string,
  limit: number,
): QueryCommandInput {
  const { indexName, partitionKey, sortKey } = TableIndexes.workQueue;
  return {
    TableName: tableName,
    IndexName: indexName,
    KeyConditionExpression: '#pk = :pk AND #sk <= :dueBy',
    ExpressionAttributeNames: { '#pk': partitionKey, '#sk': sortKey },
    ExpressionAttributeValues: { ':pk': partition, ':dueBy': `${dueBy}#\uffff` },
    Limit: limit,
  };
}
