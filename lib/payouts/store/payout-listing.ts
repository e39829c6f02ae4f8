import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { encodeCursor, isStartKeyRejection } from '../../shared/cursor.js';
import { DocumentClient, QueryCommand, type QueryCommandInput } from '../../shared/document-client.js';
import { InvalidCursorError } from '../../shared/errors.js';
import { keys, TableIndexes } from '../../table/index.js';
import type { Payout } from '../model.js';
import { payoutOf } from './carried-audit.js';
import { storedNameOf } from './compact-names.js';
import { readPayoutCursor } from './list-cursor.js';
import type { ListPage, ListQuery } from './payout-store.js';

/**
 * The payouts as the API lists them (`GET /payouts`, the approvals queue, future payouts): by status or all, newest
 * first, between `from` and `to`, of a type, page by page. A reader of its own, not a store method, so only the
 * functions that list carry it.
 *
 * @example const { items, nextCursor } = await new PayoutListing(client, table).list({ status: 'pending', limit: 20 });
 */
export class PayoutListing {
  readonly #doc: DocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
  ) {
    this.#doc = DocumentClient.from(client);
  }

  async list(query: ListQuery): Promise<ListPage> {
    const index = query.status ? TableIndexes.byStatus : TableIndexes.byMonth;
    const from = query.from ?? '0000';
    const to = `${query.to ?? '9999'}\uffff`;
    // Without a status the listing walks month partitions backwards from `to` (or now) to `from`; without
    // `from` it stops after a year of empty months, so a young table is not read back to 2020 month by month.
    const firstMonth = monthOf(query.to ?? new Date().toISOString());
    const lastMonth = monthOf(query.from ?? '2020-01-01T00:00:00.000Z');
    const cursor = readPayoutCursor(query.cursor, query, { first: firstMonth, last: lastMonth });
    const fromCursor = cursor?.key !== undefined;
    let month = cursor?.month ?? (query.status ? undefined : firstMonth);
    let startKey: Record<string, unknown> | undefined = cursor?.key;
    const items: Payout[] = [];
    let scannedThisMonth = 0;
    let emptyMonths = 0;
    for (;;) {
      const partition = query.status ? keys.statusPartition(query.status) : keys.monthPartition(month ?? '');
      const input: QueryCommandInput = {
        TableName: this.tableName,
        IndexName: index.indexName,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
        ExpressionAttributeNames: { '#pk': index.partitionKey, '#sk': index.sortKey },
        ExpressionAttributeValues: { ':pk': partition, ':from': from, ':to': to },
        ScanIndexForward: false,
        Limit: query.limit - items.length,
        ExclusiveStartKey: startKey,
      };
      if (query.type) {
        // Payouts stored before the stored names hold `instruction.type`; since, `in.t` (compact-names.ts).
        input.FilterExpression = '#in.#t = :type OR instruction.#type = :type';
        input.ExpressionAttributeNames = {
          ...input.ExpressionAttributeNames,
          '#in': storedNameOf('instruction'),
          '#t': storedNameOf('type'),
          '#type': 'type',
        };
        input.ExpressionAttributeValues = { ...input.ExpressionAttributeValues, ':type': query.type };
      }
      const page = await this.#doc.send(new QueryCommand(input)).catch((error: unknown) => {
        // The cursor's shape was checked; should DynamoDB still refuse its key, the cursor is what is wrong.
        if (fromCursor && startKey === cursor?.key && isStartKeyRejection(error)) {
          throw new InvalidCursorError('is not a cursor this listing returned', { cause: error });
        }
        throw error;
      });
      for (const item of page.Items ?? []) items.push(payoutOf(item));
      scannedThisMonth += page.ScannedCount ?? 0;
      startKey = page.LastEvaluatedKey;
      if (startKey) {
        if (items.length >= query.limit) return { items, nextCursor: encodeCursor({ month, key: startKey }) };
        continue;
      }
      if (query.status || !month || month <= lastMonth) return { items };
      emptyMonths = scannedThisMonth === 0 ? emptyMonths + 1 : 0;
      scannedThisMonth = 0;
      if (!query.from && emptyMonths >= EMPTY_MONTHS_BEFORE_STOPPING) return { items };
      month = previousMonth(month);
      if (items.length >= query.limit) return { items, nextCursor: encodeCursor({ month }) };
    }
  }
}

/** Without `from`, a listing stops walking back after this many consecutive months with no payout. */
const EMPTY_MONTHS_BEFORE_STOPPING = 12;

function monthOf(iso: string): string {
  return iso.slice(0, 7);
}

function previousMonth(month: string): string {
  const [year, monthNumber] = month.split('-').map(Number);
  const date = new Date(Date.UTC(year ?? 1970, (monthNumber ?? 1) - 2, 1));
  return date.toISOString().slice(0, 7);
}
