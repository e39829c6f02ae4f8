import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../shared/zod.js';
import type { SettlementDecision } from './model.js';

/** Keys of settlement decisions in the project's single table (see lib/payouts/store/table-design.ts). */
export const settlementKeys = {
  decision: (settlementId: string) => ({ pk: `SETTLEMENT#${settlementId}`, sk: 'DECISION' }),
  /** When instant settlement was first turned on: the default cutoff. */
  enabledSince: { pk: 'SETTLEMENT_CONFIG', sk: 'ENABLED_SINCE' },
} as const;

const enabledSinceSchema = z.object({ since: z.string() });

const principalSchema = z.object({ id: z.string(), kind: z.enum(['user', 'system']) });

/** The stored item, checked on every read. */
const decisionItemSchema = z.object({
  settlementId: z.string(),
  decision: z.enum(['paid', 'skipped']),
  code: z.optional(z.string()),
  reason: z.string(),
  payoutId: z.optional(z.string()),
  amountKobo: z.optional(z.int()),
  settlement: z.object({
    status: z.string(),
    category: z.string(),
    amountKobo: z.optional(z.int()),
    date: z.string(),
  }),
  trigger: z.enum(['event', 'api', 'poll']),
  decidedBy: principalSchema,
  decidedAt: z.string(),
});

/** Settlement decisions: written once per settlement (first writer wins), never changed afterwards. */
export class DynamoDbSettlementDecisionStore {
  readonly #doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
  ) {
    this.#doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }

  async get(settlementId: string): Promise<SettlementDecision | undefined> {
    const { Item } = await this.#doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: settlementKeys.decision(settlementId),
        ConsistentRead: true,
      }),
    );
    return Item ? decisionItemSchema.parse(Item) : undefined;
  }

  /**
   * The moment instant settlement was first turned on: recorded by the first caller (`now`), read by every
   * later one, so a redeploy or a new container never moves the cutoff.
   */
  async enabledSince(now: Date): Promise<string> {
    const read = async () => {
      const { Item } = await this.#doc.send(
        new GetCommand({ TableName: this.tableName, Key: settlementKeys.enabledSince, ConsistentRead: true }),
      );
      return Item ? enabledSinceSchema.parse(Item).since : undefined;
    };
    const recorded = await read();
    if (recorded) return recorded;
    const since = now.toISOString();
    try {
      await this.#doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...settlementKeys.enabledSince, entity: 'settlement-config', since },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return since;
    } catch (error) {
      if (!(error instanceof Error && error.name === 'ConditionalCheckFailedException')) throw error;
      const winner = await read();
      if (!winner) throw error;
      return winner;
    }
  }

  /** Records the decision unless one exists; answers the decision that holds (ours or the earlier one). */
  async record(decision: SettlementDecision): Promise<SettlementDecision> {
    try {
      await this.#doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...settlementKeys.decision(decision.settlementId),
            entity: 'settlement-decision',
            ...decision,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return decision;
    } catch (error) {
      if (!(error instanceof Error && error.name === 'ConditionalCheckFailedException')) throw error;
      const existing = await this.get(decision.settlementId);
      if (!existing) throw error;
      return existing;
    }
  }
}
