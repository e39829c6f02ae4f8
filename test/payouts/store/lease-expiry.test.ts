import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endedLeases, LEASE_SCAN_PAGE_ITEMS } from '../../../lib/payouts/engine/reconcile-payouts.js';
import type { PayoutGateway } from '../../../lib/payouts/gateway.js';
import type { Payout } from '../../../lib/payouts/model.js';
import { PayoutEngine } from '../../../lib/payouts/payout-engine.js';
import { toPayoutItem } from '../../../lib/payouts/store/item-codec.js';
import { BatchWriteCommand, DocumentClient, PutCommand } from '../../../lib/shared/document-client.js';
import { createTestTable } from '../../support/dynamodb.js';
import { storedPayout } from './stored-payout.js';

/**
 * A payout in flight (`submitting`) holds no work-queue (gsi3) keys, which spares two index writes per send; the
 * reconciler finds ended leases through the status listing instead (`endedLeases`), page by page past the
 * payouts whose lease still runs.
 */
const NOW = '2026-03-02T09:00:00.000Z';
let table: Awaited<ReturnType<typeof createTestTable>>;
let doc: DocumentClient;
let engine: PayoutEngine;
/** The look reads and decides nothing at the provider: a gateway that must never be called. */
const noProvider = new Proxy({} as PayoutGateway, {
  get: () => () => {
    throw new Error('the look for ended leases called the provider');
  },
});

beforeAll(async () => {
  table = await createTestTable('lease-expiry');
  doc = DocumentClient.from(table.client);
  engine = new PayoutEngine({ store: table.store, gateway: noProvider });
});
afterAll(() => table.client.destroy());

function inFlight(id: string, createdAt: string, leaseUntil: string): Payout {
  return storedPayout(id, {
    status: 'submitting',
    version: 2,
    capDay: '2026-03-02',
    attempt: { attemptId: `attempt-${id}`, number: 1, startedAt: createdAt, leaseUntil },
    submissionCount: 1,
    createdAt,
    updatedAt: createdAt,
  });
}

async function putAll(items: Record<string, unknown>[]): Promise<void> {
  for (let start = 0; start < items.length; start += 25) {
    await doc.send(
      new BatchWriteCommand({
        RequestItems: {
          [table.tableName]: items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } })),
        },
      }),
    );
  }
}

describe('lease expiry through the status index', () => {
  it('stores a payout in flight without work-queue keys', () => {
    const item = toPayoutItem(inFlight('LEASEKEYS', '2026-03-02T08:00:00.000Z', NOW));

    expect(item).not.toHaveProperty('gsi3pk');
    expect(item).not.toHaveProperty('gsi3sk');
    expect(item.gsi1pk).toBe('PAYOUT#STATUS#submitting');
  });

  // A volume test: it asserts what is found, never how fast; beside the suite's heavier files on one DynamoDB Local
  // its 261 writes can outlast the default 30 s.
  it('finds an ended lease behind more than a page of leases still running, and only ended ones', async () => {
    // The listing reads newest first: more than a page of payouts created later, all still within their lease.
    const running = Array.from({ length: LEASE_SCAN_PAGE_ITEMS + 10 }, (_, n) =>
      inFlight(
        `RUNNING${String(n).padStart(5, '0')}`,
        `2026-03-02T08:${String(Math.floor(n / 60)).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}.000Z`,
        '2026-03-02T09:05:00.000Z',
      ),
    );
    const ended = inFlight('ENDED', '2026-03-02T07:59:00.000Z', '2026-03-02T07:59:30.000Z');
    await putAll([...running, ended].map((payout) => toPayoutItem(payout)));

    const due = await endedLeases(engine.ctx, NOW, 50);

    expect(due.map((payout) => payout.id)).toEqual(['ENDED']);
    expect(due[0]).toEqual(ended);
  }, 90_000);

  it('starts no page past the stop instant of its invocation', async () => {
    let checks = 0;
    const stopAfterFirstPage = () => checks++ >= 1;

    // The ended lease is behind more than a page (previous test): a look that may read one page misses it.
    expect(await endedLeases(engine.ctx, NOW, 50, stopAfterFirstPage)).toEqual([]);
    expect(checks).toBe(2);
    expect(await endedLeases(engine.ctx, NOW, 50, () => true)).toEqual([]);
  });

  it('still finds a payout in flight stored before, with work-queue keys of the old lease queue', async () => {
    const older = inFlight('OLDSHAPE', '2026-03-02T07:00:00.000Z', '2026-03-02T07:00:30.000Z');
    await doc.send(
      new PutCommand({
        TableName: table.tableName,
        Item: {
          ...toPayoutItem(older),
          gsi3pk: 'WORK#lease',
          gsi3sk: `2026-03-02T07:00:30.000Z#${older.id}`,
        },
      }),
    );

    const due = await endedLeases(engine.ctx, NOW, 50);

    expect(due.map((payout) => payout.id)).toEqual(['ENDED', 'OLDSHAPE']);
  });

  it('stops at the limit, newest first', async () => {
    const due = await endedLeases(engine.ctx, NOW, 1);

    expect(due.map((payout) => payout.id)).toEqual(['ENDED']);
  });
});
