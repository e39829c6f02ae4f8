import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localAwsConfig } from '../../lib/local/dynamodb-local.js';
import type { PayoutGateway } from '../../lib/payouts/gateway.js';
import { PayoutEngine } from '../../lib/payouts/payout-engine.js';
import { DynamoDbPayoutStore } from '../../lib/payouts/store/dynamodb-payout-store.js';
import { toPayoutItem } from '../../lib/payouts/store/item-codec.js';
import { PayoutListing } from '../../lib/payouts/store/payout-listing.js';
import { ManualClock } from '../../lib/shared/clock.js';
import { BatchWriteCommand, DocumentClient } from '../../lib/shared/document-client.js';
import { ulid } from '../../lib/shared/ids.js';
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
let listing: PayoutListing;

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
  listing = new PayoutListing(counted, table.tableName);
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
    expect((await listing.list({ limit: 20 })).items).toEqual([]);
    expect(queries).toBeLessThanOrEqual(13);
  });

  it('finds older payouts when asked from a date, and recent ones without', async () => {
    const clock = new ManualClock(monthsAgo(2));
    const engine = new PayoutEngine({ store, gateway: unreachable, clock });
    const recent = (await engine.create(command(bankTransfer(1_000), 'list-recent'))).payout;
    clock.set(monthsAgo(20));
    const old = (await engine.create(command(bankTransfer(2_000), 'list-old'))).payout;

    expect((await listing.list({ limit: 20 })).items.map((p) => p.id)).toEqual([recent.id]);
    const fromTwoYears = await listing.list({ limit: 20, from: monthsAgo(24).toISOString() });
    expect(fromTwoYears.items.map((p) => p.id)).toEqual([recent.id, old.id]);
  });
});

describe('counting payouts by status', () => {
  it('counts past the 1 MB a COUNT query reads per page, and stops at its limit across pages', async () => {
    const clock = new ManualClock(new Date());
    const engine = new PayoutEngine({ store, gateway: unreachable, clock });
    const template = (await engine.create(command(bankTransfer(3_000), 'count-template'))).payout;
    const before = await store.countByStatus(template.status, 10_000); // a few, from the tests above and this one
    // 15 more payouts of about 100 KB in the same status: 1.5 MB, more than one COUNT page reads (the index
    // projects every attribute, so a page holds about ten of them).
    const doc = DocumentClient.from(table.client);
    const copies = Array.from({ length: 15 }, (_, index) =>
      toPayoutItem({
        ...template,
        id: ulid(clock.now()),
        idempotencyKey: `count-${index}`,
        narration: `count ${index} ${'x'.repeat(100_000)}`,
      }),
    );
    let pending = copies.map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      const result = await doc.send(new BatchWriteCommand({ RequestItems: { [table.tableName]: pending } }));
      pending = (result.UnprocessedItems?.[table.tableName] ?? []) as typeof pending;
    }
    queries = 0;
    expect(await store.countByStatus(template.status, 10_000)).toBe(before + 15);
    expect(queries).toBeGreaterThan(1);
    // 12 is past the first page's ten or so: the second page is asked for only what is left.
    expect(await store.countByStatus(template.status, 12)).toBe(12);
  });
});
