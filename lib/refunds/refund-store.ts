import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { TableIndexes } from '../payouts/store/table-design.js';
import { createWithIdempotencyKey } from '../shared/idempotent-create.js';
import * as z from '../shared/zod.js';
import { RefundConcurrentModificationError } from './errors.js';
import { type Refund, refundWorkDueAt } from './model.js';

/** Keys of refund items in the project's single table (see lib/payouts/store/table-design.ts). */
export const refundKeys = {
  refund: (id: string) => ({ pk: `REFUND#${id}`, sk: 'REFUND' }),
  idempotency: (key: string) => ({ pk: `IDEMPOTENCY#refund#${key}`, sk: 'IDEMPOTENCY' }),
  /** The work queue (gsi3) of refunds the sweeper must still send or settle. */
  workPartition: 'WORK#refund',
} as const;

/** The stored item; refunds not yet settled also sit in the work queue, due when the sweeper should look. */
function toRefundItem(refund: Refund): Record<string, unknown> {
  const dueAt = refundWorkDueAt(refund);
  const { partitionKey, sortKey } = TableIndexes.workQueue;
  return {
    ...refundKeys.refund(refund.id),
    entity: 'refund',
    ...refund,
    ...(dueAt && { [partitionKey]: refundKeys.workPartition, [sortKey]: `${dueAt}#${refund.id}` }),
  };
}

const principalSchema = z.object({ id: z.string(), kind: z.enum(['user', 'system']) });

/** The stored item, checked on every read: a corrupt item fails loudly rather than flowing on. */
const refundItemSchema = z.object({
  id: z.string(),
  idempotencyKey: z.string(),
  requestFingerprint: z.string(),
  transactionId: z.string(),
  amountKobo: z.int(),
  customerNote: z.string(),
  merchantNote: z.string(),
  status: z.enum(['requested', 'sending', 'pending', 'rejected', 'not_sent', 'unknown']),
  version: z.int(),
  requestedBy: principalSchema,
  providerRefundId: z.optional(z.string()),
  providerStatus: z.optional(z.string()),
  failure: z.optional(z.object({ code: z.string(), message: z.string() })),
  sendAttempts: z.optional(z.int().check(z.nonnegative())),
  claimId: z.optional(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export type CreateRefundOutcome =
  | { readonly created: true; readonly refund: Refund }
  | { readonly created: false; readonly existing: Refund };

/** Refund persistence: a conditional create with its idempotency key, and version-guarded updates. */
export class DynamoDbRefundStore {
  readonly #doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
  ) {
    this.#doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }

  /** Writes refund and idempotency key in one transaction, or returns the refund that holds the key. */
  async create(refund: Refund): Promise<CreateRefundOutcome> {
    const outcome = await createWithIdempotencyKey(this.#doc, {
      tableName: this.tableName,
      key: refundKeys.idempotency(refund.idempotencyKey),
      ownerAttribute: 'refundId',
      ownerId: refund.id,
      createdAt: refund.createdAt,
      items: [toRefundItem(refund)],
    });
    if (outcome.created) return { created: true, refund };
    const existing = await this.get(outcome.ownerId);
    if (!existing) throw new RefundConcurrentModificationError(refund.id);
    return { created: false, existing };
  }

  async get(id: string): Promise<Refund | undefined> {
    const { Item } = await this.#doc.send(
      new GetCommand({ TableName: this.tableName, Key: refundKeys.refund(id), ConsistentRead: true }),
    );
    return Item ? refundItemSchema.parse(Item) : undefined;
  }

  /** Replaces the refund only if it is still at `before.version`. */
  async update(before: Refund, after: Refund): Promise<Refund> {
    try {
      await this.#doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: toRefundItem(after),
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': before.version },
        }),
      );
      return after;
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') {
        throw new RefundConcurrentModificationError(before.id, { cause: error });
      }
      throw error;
    }
  }

  /** Refunds the sweeper should look at by `dueBy`, earliest first; reads only those. */
  async due(dueBy: string, limit: number): Promise<Refund[]> {
    const { indexName, partitionKey, sortKey } = TableIndexes.workQueue;
    const { Items } = await this.#doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: indexName,
        KeyConditionExpression: '#pk = :pk AND #sk <= :dueBy',
        ExpressionAttributeNames: { '#pk': partitionKey, '#sk': sortKey },
        ExpressionAttributeValues: { ':pk': refundKeys.workPartition, ':dueBy': `${dueBy}#\uffff` },
        Limit: limit,
      }),
    );
    return (Items ?? []).map((item) => refundItemSchema.parse(item));
  }
}
