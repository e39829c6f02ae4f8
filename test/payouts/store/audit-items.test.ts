import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent, Payout } from '../../../lib/payouts/model.js';
import { keys } from '../../../lib/payouts/store/table-design.js';
import { createTestTable } from '../../support/dynamodb.js';
import { storedPayout } from './stored-payout.js';

/**
 * The audit trail as stored: a creation already claimed (the API's and events' path) records its two decisions,
 * created and claimed, in ONE audit item of its transaction, since each item of a transaction costs 2 write
 * units; every other write records its one event in an item of its own. Items written one event each before
 * (a creation already claimed used to write two) read back the same.
 */
let table: Awaited<ReturnType<typeof createTestTable>>;
let doc: DynamoDBDocumentClient;

beforeAll(async () => {
  table = await createTestTable('audit-items');
  doc = DynamoDBDocumentClient.from(table.client);
});
afterAll(() => table.client.destroy());

const system = { id: 'engine', kind: 'system' } as const;

function event(
  payoutId: string,
  sequence: number,
  from: AuditEvent['from'],
  to: AuditEvent['to'],
): AuditEvent {
  return {
    payoutId,
    sequence,
    at: `2026-03-02T08:00:0${sequence}.000Z`,
    actor: sequence === 1 ? { id: 'alice', kind: 'user' } : system,
    from,
    to,
    reason: `step ${sequence}`,
    ...(sequence === 2 && { details: { capDay: '2026-03-02' } }),
  };
}

async function storedAuditItems(payoutId: string) {
  const { Items } = await doc.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :audit)',
      ExpressionAttributeValues: { ':pk': keys.payout(payoutId).pk, ':audit': 'AUDIT#' },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}

describe('payout audit items', () => {
  it('stores the two events of a creation already claimed in one item, and reads them back as two', async () => {
    const id = 'AUDITPACKED00000000000001';
    const created = event(id, 1, null, 'pending');
    const claimed = event(id, 2, 'pending', 'submitting');
    const claimedPayout: Payout = { ...storedPayout(id), status: 'submitting', version: 2 };

    const outcome = await table.store.create(claimedPayout, created, {
      audit: claimed,
      cap: { capKey: 'merchant', day: '2026-03-02', deltaKobo: 15_000, limitKobo: 1_000_000 },
    });

    expect(outcome.created).toBe(true);
    const items = await storedAuditItems(id);
    expect(items.map((item) => item.sk)).toEqual(['AUDIT#000001']);
    expect(await table.store.getAudit(id)).toEqual([created, claimed]);

    // The next decision goes on in an item of its own, after both.
    const paid = event(id, 3, 'submitting', 'succeeded');
    await table.store.transition({
      before: claimedPayout,
      after: { ...claimedPayout, status: 'succeeded', version: 3 },
      audit: paid,
    });
    expect((await storedAuditItems(id)).map((item) => item.sk)).toEqual(['AUDIT#000001', 'AUDIT#000003']);
    expect(await table.store.getAudit(id)).toEqual([created, claimed, paid]);
  });

  it('writes one event per item for a creation not claimed', async () => {
    const id = 'AUDITSINGLE0000000000001';
    const created = event(id, 1, null, 'pending');

    await table.store.create(storedPayout(id), created);

    const items = await storedAuditItems(id);
    expect(items).toHaveLength(1);
    expect(items[0]).not.toHaveProperty('following');
    expect(await table.store.getAudit(id)).toEqual([created]);
  });

  it('reads a trail written one event per item before, in sequence order', async () => {
    const id = 'AUDITLEGACY0000000000001';
    const legacy = [event(id, 1, null, 'pending'), event(id, 2, 'pending', 'submitting')];
    for (const old of legacy) {
      await doc.send(
        new PutCommand({
          TableName: table.tableName,
          Item: { ...keys.audit(id, old.sequence), entity: 'audit', ...old },
        }),
      );
    }

    expect(await table.store.getAudit(id)).toEqual(legacy);
  });
});
