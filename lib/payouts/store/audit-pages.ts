import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditEvent } from '../model.js';
import { fromAuditItem } from './item-codec.js';
import { keys } from './table-design.js';

/** Where a page of an audit trail starts: after this event, read from the audit item holding it. */
export interface AuditPosition {
  /** The sequence of the first event of the audit item holding `sequence` (that item's sort key). */
  readonly item: number;
  readonly sequence: number;
}

export interface AuditPage {
  readonly events: AuditEvent[];
  /** Where the next page starts; absent on the last page. */
  readonly next?: AuditPosition;
}

/**
 * A payout's whole audit trail, page by page, oldest first (`GET /payouts/{id}/audit`). A reader of its own, not
 * a store method, so only the function serving the route carries it.
 *
 * @example const { events, next } = await new PayoutAuditPages(client, table).page(id, { limit: 50 });
 */
export class PayoutAuditPages {
  readonly #doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
  ) {
    this.#doc = DynamoDBDocumentClient.from(client);
  }

  /**
   * Reads audit items from the one holding `after` on (an item holds the events of one write), `limit` + 1 items
   * a query with consistent reads, until it has more than `limit` events after it or the trail ends.
   */
  async page(payoutId: string, query: { limit: number; after?: AuditPosition }): Promise<AuditPage> {
    const after = query.after?.sequence ?? 0;
    const found: { event: AuditEvent; item: number }[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.#doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: {
            ':pk': keys.payout(payoutId).pk,
            ':from': keys.audit(payoutId, query.after?.item ?? 0).sk,
            ':to': 'AUDIT#\uffff',
          },
          ConsistentRead: true,
          Limit: query.limit + 1,
          ...(startKey && { ExclusiveStartKey: startKey }),
        }),
      );
      for (const raw of page.Items ?? []) {
        const events = fromAuditItem(raw);
        const item = events[0]?.sequence ?? 0;
        for (const event of events) if (event.sequence > after) found.push({ event, item });
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey && found.length <= query.limit);
    const shown = found.slice(0, query.limit);
    const last = shown.at(-1);
    const more = found.length > query.limit || startKey !== undefined;
    return {
      events: shown.map(({ event }) => event),
      ...(more && last && { next: { item: last.item, sequence: last.event.sequence } }),
    };
  }
}
