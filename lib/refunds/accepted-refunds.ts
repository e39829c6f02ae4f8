import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type Document, DocumentClient, QueryCommand } from '../shared/document-client.js';
import { readItem } from '../shared/table-reads.js';
import * as z from '../shared/zod.js';
import { TableIndexes } from '../table/index.js';
import { type AcceptedRefund, acceptedRefundKeys } from './accepted-refund-item.js';

export {
  type AcceptedBy,
  type AcceptedRefund,
  acceptedRefundItem,
  acceptedRefundKeys,
} from './accepted-refund-item.js';

// A module of its own, apart from refund-store.ts: the daily statement reads these items and nothing else of
// refunds, so its bundle carries this file and not the refund store's transactions and controls.

const { byStatus } = TableIndexes;

/** Checked on every read; built on first use (z.lazy), like the store's schemas. */
const acceptedRefundSchema = z.lazy(() =>
  z.object({
    refundId: z.string(),
    providerRefundId: z.string(),
    transactionId: z.string(),
    amountKobo: z.int(),
    acceptedAt: z.string(),
    acceptedBy: z.enum(['answer', 'resolution']),
  }),
);

/** Refunds the provider accepted: by its refund id, and those accepted within a span. */
export class AcceptedRefunds {
  readonly #doc: DocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
  ) {
    this.#doc = DocumentClient.from(client);
  }

  /** The refund of ours the provider knows as `providerRefundId`, if any. */
  async get(
    providerRefundId: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<AcceptedRefund | undefined> {
    const item = await readItem(
      this.#doc,
      this.tableName,
      acceptedRefundKeys.byProviderRefundId(providerRefundId),
      options.signal ? { abortSignal: options.signal } : {},
    );
    return item ? acceptedRefundSchema.parse(item) : undefined;
  }

  /**
   * One page of the refunds accepted by the provider's answer from `from` to `to` (ISO instants, inclusive),
   * oldest first; `nextKey` while there are more.
   */
  async acceptedBetween(
    span: { from: string; to: string },
    options: { limit?: number; startKey?: Document; signal?: AbortSignal } = {},
  ): Promise<{ items: AcceptedRefund[]; nextKey?: Document }> {
    const page = await this.#doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: byStatus.indexName,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
        ExpressionAttributeNames: { '#pk': byStatus.partitionKey, '#sk': byStatus.sortKey },
        ExpressionAttributeValues: {
          ':pk': acceptedRefundKeys.acceptedPartition,
          ':from': span.from,
          // Every refund id sorts below U+FFFF: a refund accepted at `to` itself is in.
          ':to': `${span.to}#\uffff`,
        },
        ...(options.limit !== undefined && { Limit: options.limit }),
        ...(options.startKey && { ExclusiveStartKey: options.startKey }),
      }),
      options.signal ? { abortSignal: options.signal } : {},
    );
    return {
      items: (page.Items ?? []).map((item) => acceptedRefundSchema.parse(item)),
      ...(page.LastEvaluatedKey && { nextKey: page.LastEvaluatedKey }),
    };
  }
}
