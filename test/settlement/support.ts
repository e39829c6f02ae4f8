import { DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import type { ProviderClient, Settlement } from '../../lib/provider/index.js';
import { addSettlement, type SettlementCategory } from '../../lib/sandbox/index.js';
import type { SettlementPolicy } from '../../lib/settlement/policy.js';
import { SettlementService } from '../../lib/settlement/settlement-service.js';
import { DynamoDbSettlementDecisionStore } from '../../lib/settlement/store/dynamodb-decision-store.js';
import { observeAwsCalls } from '../../lib/shared/aws-call-observer.js';
import type { EngineHarness } from '../support/engine-harness.js';
import { iamChecked, UNATTRIBUTED } from '../support/iam/checked-calls.js';

export const destination = { bankCode: '058', accountNumber: '0987654321', accountName: 'Demo Merchant Ltd' };

export const allDayPolicy: SettlementPolicy = {
  destination,
  minimumKobo: 100,
  keepBackKobo: 0,
  allowedMinutes: { from: 0, to: 24 * 60 },
  categories: ['MERCHANT_SETTLEMENT', 'CARD_SETTLEMENT'],
  // The sandbox seeds settlements dated February 2025: an explicit cutoff before them, as an operator who
  // chose to pay that history would set, so these tests exercise the other rules. The cutoff has its own tests.
  since: '2025-01-01T00:00:00.000Z',
};

/**
 * A settlement service over the harness's engine, table and sandbox; `parts` swap in a provider, or the DynamoDB
 * client its decision store is built on.
 */
export function settlementServiceFor(
  h: EngineHarness,
  policy: Partial<SettlementPolicy> = {},
  parts: { provider?: Pick<ProviderClient, 'settlements'>; dynamoDb?: DynamoDBClient } = {},
) {
  const dynamoDb =
    parts.dynamoDb ?? new DynamoDBClient({ endpoint: inject('dynamoDbEndpoint'), ...localAwsConfig });
  const iam = iamChecked(UNATTRIBUTED);
  observeAwsCalls(dynamoDb, iam.functionName, iam.observer);
  const store = new DynamoDbSettlementDecisionStore(dynamoDb, h.tableName);
  const service = new SettlementService({
    engine: h.engine,
    provider: parts.provider ?? h.client,
    store,
    policy: { ...allDayPolicy, ...policy },
    clock: h.clock,
    logger: h.logger,
  });
  return { service, store, dynamoDb };
}

/** The seeded settlement of a category and status, read the way the service reads it. */
export async function seededSettlement(
  h: EngineHarness,
  category: string,
  status: 'SUCCESSFUL' | 'FAILED',
): Promise<Settlement> {
  const { items } = await h.client.settlements.list({ perPage: 100 });
  const found = items.find((s) => s.category === category && s.status === status);
  if (!found) throw new Error(`no seeded ${status} ${category}`);
  return found;
}

/** A new SUCCESSFUL settlement at the sandbox, the newest it lists (its admin path, no provider request). */
export function newSettlement(
  h: EngineHarness,
  category: SettlementCategory = 'MERCHANT_SETTLEMENT',
): Promise<string> {
  return addSettlement(h.sandbox.url, { category, amountKobo: 250_000 });
}

/** The instant payouts the sandbox committed for one settlement id. */
export function instantPayoutsFor(h: EngineHarness, settlementId: string) {
  return h.sandbox
    .ledger()
    .operations.filter(
      (op) => op.path === '/settlement/instant/payout' && op.metadata.settlementId === settlementId,
    );
}

/** Payout items of the table whose idempotency key is the settlement id, under the settlement origin. */
export async function idempotencyItems(dynamoDb: DynamoDBClient, tableName: string, settlementId: string) {
  const { Items } = await dynamoDb.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: `IDEMPOTENCY#settlement#${settlementId}` } },
    }),
  );
  return Items ?? [];
}
