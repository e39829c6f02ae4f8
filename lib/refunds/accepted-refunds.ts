import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TableIndexes } from '../payouts/store/table-design.js';
import { type Document, DocumentClient, GetCommand, QueryCommand } from '../shared/document-client.js';
import * as z from '../shared/zod.js';

// A module of its own, apart from refund-store.ts: the daily statement reads these items and nothing else of
// refunds, so its bundle carries this file and not the refund store's transactions and controls.

/**
 * The refunds the provider accepted, one item each, by the provider's refund id: a refund's wallet record names
 * that id as its `reference` (lib/provider/CONTRACT.md, "A refund's wallet record"), and the daily statement
 * finds our refund from it with one GetItem. The item is written in the same transaction that records the
 * refund's `providerRefundId` (DynamoDbRefundStore.update), under the refunds' own key prefix (`REFUND#*`), so
 * the functions that record refunds already may write it.
 */
export const acceptedRefundKeys = {
  byProviderRefundId: (providerRefundId: string) => ({
    pk: `REFUND#PROVIDER#${providerRefundId}`,
    sk: 'ACCEPTED',
  }),
  /**
   * The gsi1 partition of the refunds accepted by the provider's answer, sorted `<acceptedAt>#<refundId>`: the
   * statement reads exactly those of its day.
   */
  acceptedPartition: 'REFUND#ACCEPTED',
} as const;

/** How we came to hold a refund as accepted. */
export const AcceptedBy = {
  /** The provider answered our `POST /refund` with its refund: its record was made just before `acceptedAt`. */
  Answer: 'answer',
  /**
   * Two people settled an `unknown` refund as accepted: its record was made when it was sent, which we do not
   * know, so it is matched when listed but never expected on a day.
   */
  Resolution: 'resolution',
} as const;
export type AcceptedBy = (typeof AcceptedBy)[keyof typeof AcceptedBy];

/** A refund the provider accepted, as the daily statement matches it. Money is integer kobo. */
export interface AcceptedRefund {
  readonly refundId: string;
  readonly providerRefundId: string;
  /** The payment-link transaction refunded. */
  readonly transactionId: string;
  readonly amountKobo: number;
  /** When we recorded the acceptance (the refund's `updatedAt` of that change). */
  readonly acceptedAt: string;
  readonly acceptedBy: AcceptedBy;
}

const { byStatus } = TableIndexes;

/** The stored item: only refunds accepted by the provider's answer are in the gsi1 partition (sparse). */
export function acceptedRefundItem(accepted: AcceptedRefund): Record<string, unknown> {
  return {
    ...acceptedRefundKeys.byProviderRefundId(accepted.providerRefundId),
    entity: 'acceptedRefund',
    ...accepted,
    ...(accepted.acceptedBy === AcceptedBy.Answer && {
      [byStatus.partitionKey]: acceptedRefundKeys.acceptedPartition,
      [byStatus.sortKey]: `${accepted.acceptedAt}#${accepted.refundId}`,
    }),
  };
}

/** Checked on every read; built on first use (z.lazy), like the store's schemas. */
const acceptedRefundSchema = z.lazy(() =>
  z.object({
    refundId: z.string(),
    providerRefundId: z.string(),
    transactionId: z.string(),
    amountKobo: z.int(),
    acceptedAt: z.string(),
    acceptedBy: z.enum([AcceptedBy.Answer, AcceptedBy.Resolution]),
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
    const { Item } = await this.#doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: acceptedRefundKeys.byProviderRefundId(providerRefundId),
        ConsistentRead: true,
      }),
      options.signal ? { abortSignal: options.signal } : {},
    );
    return Item ? acceptedRefundSchema.parse(Item) : undefined;
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
