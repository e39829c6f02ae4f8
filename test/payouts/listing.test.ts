import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import type { PayoutGateway } from '../../lib/payouts/gateway.js';
import { PayoutEngine } from '../../lib/payouts/payout-engine.js';
import { DynamoDbPayoutStore } from '../../lib/payouts/store/dynamodb-payout-store.js';
import { ManualClock } from '../../lib/shared/clock.js';
import { createTestTable } from '../support/dynamodb.js';
import { bankTransfer, command } from '../support/engine-harness.js';

/** Listing never reaches the provider. */
const unreachable: PayoutGateway = {
  send: () => Promise.reject(new Error('no provider call expected')),
  find: () => Promise.reject(new Error('no provider call expected')),
};

let table: Awaited<ReturnType<typeof createTestTable>>;
let counted: DynamoDBClient;
let queries = 0;
let store: DynamoDbPayoutStore;

beforeAll(async () => {
  table = await createTestTable('listing');
  counted = new DynamoDBClient({ endpoint: inject('dynamoDbEndpoint'), ...localAwsConfig });
  counted.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'QueryCommand') queries++;
      return next(args);
    },
    { step: 'initialize', name: 'countQueries' },
  );
  store = new DynamoDbPayoutStore(counted, table.tableName);
});
afterAll(() => {
  counted.destroy();
  table.client.destroy();
});

const monthsAgo = (months: number) => {
  const at = new Date();
  at.setUTCMonth(at.getUTCMonth() - months, 15);
  return at;
};

describe('listing payouts without a status', () => {
  it('stops after a year of empty months instead of reading back to 2020', async () => {
    queries = 0;
    expect((await store.list({ limit: 20 })).items).toEqual([]);
    expect(queries).toBeLessThanOrEqual(13);
  });

  it('finds older payouts when asked from a date, and recent ones without', async () => {
    const clock = new ManualClock(monthsAgo(2));
    const engine = new PayoutEngine({ store, gateway: unreachable, clock });
    const recent = (await engine.create(command(bankTransfer(1_000), 'list-recent'))).payout;
    clock.set(monthsAgo(20));
    const old = (await engine.create(command(bankTransfer(2_000), 'list-old'))).payout;

    expect((await store.list({ limit: 20 })).items.map((p) => p.id)).toEqual([recent.id]);
    const fromTwoYears = await store.list({ limit: 20, from: monthsAgo(24).toISOString() });
    expect(fromTwoYears.items.map((p) => p.id)).toEqual([recent.id, old.id]);
  });
});
