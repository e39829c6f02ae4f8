import { type DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { CreationCompanion } from '../../payouts/index.js';
import { DocumentClient, PutCommand, TransactWriteCommand } from '../../shared/document-client.js';
import { nextRequestSent } from '../../shared/dynamodb-client.js';
import { type Listing, listingAttributes, queryListing } from '../../shared/index-listing.js';
import type { CursorPage } from '../../shared/paging.js';
import { readItem } from '../../shared/table-reads.js';
import * as z from '../../shared/zod.js';
import type { SettlementDecisionStore } from '../decision-store.js';
import type {
  SettlementDecision,
  SettlementDeferral,
  SettlementListing,
  SettlementListingState,
} from '../model.js';

// The schemas below are built on first use (z.lazy), not when a function loads this module: a cold start that never
// reads these items does not pay for them (docs/cold-start.md).

/** Keys of settlement decisions in the project's single table (see lib/table/table-design.ts). */
export const settlementKeys = {
  decision: (settlementId: string) => ({ pk: `SETTLEMENT#${settlementId}`, sk: 'DECISION' }),
  deferral: (settlementId: string) => ({ pk: `SETTLEMENT#${settlementId}`, sk: 'DEFERRAL' }),
  /** When instant settlement was first turned on: the default cutoff. */
  enabledSince: { pk: 'SETTLEMENT_CONFIG', sk: 'ENABLED_SINCE' },
} as const;

const enabledSinceSchema = z.lazy(() => z.object({ since: z.string() }));

const principalSchema = z.lazy(() => z.object({ id: z.string(), kind: z.enum(['user', 'system']) }));
const snapshotSchema = z.lazy(() =>
  z.object({
    status: z.string(),
    category: z.string(),
    amountKobo: z.optional(z.int()),
    date: z.string(),
  }),
);
const triggerSchema = z.lazy(() => z.enum(['event', 'api', 'poll']));

const deferralItemSchema = z.lazy(() =>
  z.object({
    settlementId: z.string(),
    code: z.string(),
    reason: z.string(),
    settlement: snapshotSchema,
    trigger: triggerSchema,
    deferredBy: principalSchema,
    deferredAt: z.string(),
  }),
);

/** The stored item, checked on every read. */
const decisionItemSchema = z.lazy(() =>
  z.object({
    settlementId: z.string(),
    decision: z.enum(['paid', 'skipped']),
    code: z.optional(z.string()),
    reason: z.string(),
    payoutId: z.optional(z.string()),
    amountKobo: z.optional(z.int()),
    settlement: snapshotSchema,
    trigger: triggerSchema,
    decidedBy: principalSchema,
    decidedAt: z.string(),
  }),
);

/** Decisions and open deferrals: by state (`paid`, `skipped`, `deferred`) and all, newest first. */
const settlementListing: Listing = {
  statePartition: (state) => `SETTLEMENT#STATE#${state}`,
  allPartition: 'SETTLEMENT#ALL',
};

/**
 * Settlement decisions in the project's table (the SettlementDecisionStore port, decision-store.ts): written once per
 * settlement (first writer wins), never changed afterwards.
 */
export class DynamoDbSettlementDecisionStore implements SettlementDecisionStore {
  readonly #client: DynamoDBClient;
  readonly #doc: DocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
  ) {
    this.#client = client;
    this.#doc = DocumentClient.from(client);
  }

  /** Resolves once this store's next request is on its way to DynamoDB (see `nextRequestSent`). */
  afterRequestSent(): Promise<void> {
    return nextRequestSent(this.#client);
  }

  async get(settlementId: string): Promise<SettlementDecision | undefined> {
    const item = await readItem(this.#doc, this.tableName, settlementKeys.decision(settlementId));
    return item ? decisionItemSchema.parse(item) : undefined;
  }

  /**
   * The moment instant settlement was first turned on: recorded by the first caller (`now`), read by every
   * later one, so a redeploy or a new container never moves the cutoff.
   */
  async enabledSince(now: Date): Promise<string> {
    const read = async () => {
      const item = await readItem(this.#doc, this.tableName, settlementKeys.enabledSince);
      return item ? enabledSinceSchema.parse(item).since : undefined;
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

  /**
   * The writes that record `decision` (once: conditional on no decision yet) and close the settlement's deferral:
   * sent alone by `record`, or as the companion of the payout's creation (CreationCompanion), so that a settlement
   * paid and the decision naming its payout commit together.
   */
  recording(decision: SettlementDecision): CreationCompanion {
    return {
      items: [
        {
          Put: {
            TableName: this.tableName,
            Item: {
              ...settlementKeys.decision(decision.settlementId),
              entity: 'settlement-decision',
              ...decision,
              ...listingAttributes(
                settlementListing,
                decision.decision,
                decision.decidedAt,
                decision.settlementId,
              ),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        { Delete: { TableName: this.tableName, Key: settlementKeys.deferral(decision.settlementId) } },
      ],
    };
  }

  /**
   * Records the decision unless one exists, removing the settlement's deferral in the same write; answers the
   * decision that holds (ours or the earlier one).
   */
  async record(decision: SettlementDecision): Promise<SettlementDecision> {
    try {
      await this.#doc.send(new TransactWriteCommand({ TransactItems: [...this.recording(decision).items] }));
      return decision;
    } catch (error) {
      return this.#decidedBefore(decision.settlementId, error);
    }
  }

  /**
   * Records (or replaces) the settlement's latest deferral, unless it has been decided: then nothing is written,
   * and the decision that holds is answered.
   */
  async recordDeferral(deferral: SettlementDeferral): Promise<SettlementDecision | undefined> {
    try {
      await this.#doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: this.tableName,
                Key: settlementKeys.decision(deferral.settlementId),
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: {
                  ...settlementKeys.deferral(deferral.settlementId),
                  entity: 'settlement-deferral',
                  ...deferral,
                  ...listingAttributes(
                    settlementListing,
                    'deferred',
                    deferral.deferredAt,
                    deferral.settlementId,
                  ),
                },
              },
            },
          ],
        }),
      );
      return undefined;
    } catch (error) {
      // Decided: the decision stands and no deferral is shown.
      return this.#decidedBefore(deferral.settlementId, error);
    }
  }

  /**
   * The decision that made a write fail its condition (no decision yet): `error` again when the write failed
   * otherwise, or when no decision can be read.
   */
  async #decidedBefore(settlementId: string, error: unknown): Promise<SettlementDecision> {
    if (!(error instanceof TransactionCanceledException)) throw error;
    const decided = await this.get(settlementId);
    if (!decided) throw error;
    return decided;
  }

  /** The settlement's open deferral, if it has no decision yet. */
  async deferral(settlementId: string): Promise<SettlementDeferral | undefined> {
    const item = await readItem(this.#doc, this.tableName, settlementKeys.deferral(settlementId));
    return item ? deferralItemSchema.parse(item) : undefined;
  }

  /**
   * Decisions and open deferrals, newest first, optionally of one state.
   *
   * @throws InvalidCursorError when the cursor is not one this listing issued
   */
  async list(query: {
    state?: SettlementListingState;
    limit: number;
    cursor?: string;
  }): Promise<CursorPage<SettlementListing>> {
    return queryListing(
      this.#doc,
      this.tableName,
      settlementListing,
      query,
      (item): SettlementListing =>
        item.entity === 'settlement-deferral'
          ? { kind: 'deferral', ...deferralItemSchema.parse(item) }
          : { kind: 'decision', ...decisionItemSchema.parse(item) },
    );
  }
}
