import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent, Payout } from '../../../lib/payouts/model.js';
import { PayoutAuditTrail } from '../../../lib/payouts/store/audit-trail.js';
import { DynamoDbPayoutStore } from '../../../lib/payouts/store/dynamodb-payout-store.js';
import { toPayoutItem, toStoredEvent } from '../../../lib/payouts/store/item-codec.js';
import { DocumentClient, GetCommand, PutCommand, QueryCommand } from '../../../lib/shared/document-client.js';
import { createDynamoDbClient } from '../../../lib/shared/dynamodb-client.js';
import { ConcurrentModificationError } from '../../../lib/shared/errors.js';
import { itemBytes } from '../../../lib/shared/item-size.js';
import { localAwsConfig } from '../../../lib/shared/local-aws-config.js';
import { keys } from '../../../lib/table/index.js';
import { createTestTable } from '../../support/dynamodb.js';
import { storedPayout } from './stored-payout.js';

/**
 * Where a payout's audit events are stored (docs/data-model.md, "Audit events"): the creation's (with a claim,
 * both) on the idempotency key item of the creation's transaction; each later event on the payout item itself,
 * in the same conditional write as the change it records, while the item stays under 1 KB; when it would not,
 * the events move to an audit item in the same transaction. Trails stored before (one audit item per write,
 * payouts in long attribute names) read back the same and go on in the new shape.
 */
let table: Awaited<ReturnType<typeof createTestTable>>;
let doc: DocumentClient;

beforeAll(async () => {
  table = await createTestTable('audit-items');
  doc = DocumentClient.from(table.client);
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

async function payoutItem(payoutId: string) {
  const { Item } = await doc.send(
    new GetCommand({ TableName: table.tableName, Key: keys.payout(payoutId), ConsistentRead: true }),
  );
  return Item ?? {};
}

/** A payout item as stored before the stored names: every attribute in its long name. */
function longNamedItem(payout: Payout): Record<string, unknown> {
  const { id: _keySays, currency: _onlyNgn, metadata: _empty, ...fields } = payout;
  const { pk, sk, entity, gsi1pk, gsi1sk, gsi2pk, gsi2sk } = toPayoutItem(payout);
  return { pk, sk, entity, gsi1pk, gsi1sk, gsi2pk, gsi2sk, ...fields };
}

/** A client of the test table that lists the commands it sends, in order. */
function countingClient() {
  const commands: string[] = [];
  const counted = createDynamoDbClient({ endpoint: table.endpoint, ...localAwsConfig });
  counted.middlewareStack.add(
    (next, context) => (args) => {
      commands.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize' },
  );
  return { counted, commands };
}

async function trailOf(payoutId: string) {
  return (await new PayoutAuditTrail(table.client, table.tableName).whole(payoutId))?.audit;
}

const cap = { capKey: 'merchant', day: '2026-03-02', deltaKobo: 15_000, limitKobo: 1_000_000 };

describe('payout audit events as stored', () => {
  it('keeps a creation already claimed on the key item, and the outcome on the payout item: no audit item', async () => {
    const id = 'AUDITPACKED00000000000001';
    const created = event(id, 1, null, 'pending');
    const claimed = event(id, 2, 'pending', 'submitting');
    const claimedPayout: Payout = { ...storedPayout(id), status: 'submitting', version: 2 };

    const outcome = await table.store.create(claimedPayout, created, { audit: claimed, cap });

    expect(outcome.created).toBe(true);
    const { Item: keyItem } = await doc.send(
      new GetCommand({
        TableName: table.tableName,
        Key: keys.idempotency('api', claimedPayout.idempotencyKey),
      }),
    );
    expect(keyItem?.ev).toHaveLength(2);
    expect(await storedAuditItems(id)).toEqual([]);
    expect(await trailOf(id)).toEqual([created, claimed]);

    const paid = event(id, 3, 'submitting', 'succeeded');
    await table.store.transition({
      before: claimedPayout,
      after: { ...claimedPayout, status: 'succeeded', version: 3 },
      audit: paid,
    });

    const stored = await payoutItem(id);
    expect(stored.ev).toHaveLength(1);
    expect(itemBytes(stored)).toBeLessThan(1024);
    expect(await storedAuditItems(id)).toEqual([]);
    expect(await trailOf(id)).toEqual([created, claimed, paid]);

    // Nothing moved to an audit item, so a reader looks for none: the payout item, then its key item.
    const { counted, commands } = countingClient();
    const trail = new PayoutAuditTrail(counted, table.tableName);
    expect((await trail.whole(id))?.audit).toEqual([created, claimed, paid]);
    expect((await trail.page(id, { limit: 2 }))?.events).toEqual([created, claimed]);
    expect(commands).toEqual(['GetItemCommand', 'GetItemCommand', 'GetItemCommand', 'GetItemCommand']);
    counted.destroy();
  });

  it('moves the carried events to an audit item, in the same write, once the payout would pass 1 KB', async () => {
    const id = 'AUDITMOVED000000000000001';
    let payout = storedPayout(id, { narration: 'n'.repeat(200) });
    const trail = [event(id, 1, null, 'pending')];
    await table.store.create(payout, trail[0] as AuditEvent);
    for (let sequence = 2; sequence <= 12; sequence++) {
      const after: Payout = {
        ...payout,
        version: sequence,
        nextActionAt: `2026-03-02T09:00:${10 + sequence}.000Z`,
      };
      const step = {
        ...event(id, sequence, 'pending', 'pending'),
        reason: `looked again, ${'x'.repeat(60)}`,
      };
      await table.store.transition({ before: payout, after, audit: step });
      trail.push(step);
      payout = after;
      expect(itemBytes(await payoutItem(id))).toBeLessThan(1024);
    }

    const moved = await storedAuditItems(id);
    expect(moved.length).toBeGreaterThan(0);
    expect(await trailOf(id)).toEqual(trail);
    // Page by page too, across the key item, the audit items and the events the payout carries.
    const pages = new PayoutAuditTrail(table.client, table.tableName);
    const read: AuditEvent[] = [];
    let after: Parameters<PayoutAuditTrail['page']>[1]['after'];
    do {
      const page = await pages.page(id, { limit: 2, ...(after && { after }) });
      read.push(...(page?.events ?? []));
      after = page?.next;
    } while (after);
    expect(read).toEqual(trail);
  });

  /** A payout of the two steps (created pending, then claimed with the cap), claimed and paid with a receipt. */
  async function claimAndPay(id: string, narration: string) {
    const { counted, commands } = countingClient();
    const store = new DynamoDbPayoutStore(counted, table.tableName);
    const created = event(id, 1, null, 'pending');
    const pending = storedPayout(id, { narration });
    await store.create(pending, created);
    const claimedPayout: Payout = {
      ...pending,
      status: 'submitting',
      version: 2,
      capDay: '2026-03-02',
      submissionCount: 1,
      attempt: {
        attemptId: '01KJPRZB00FVY2R893FSSBCC43',
        number: 1,
        startedAt: '2026-03-02T08:00:00.000Z',
        leaseUntil: '2026-03-02T08:02:00.000Z',
        providerAttempt: 1,
      },
    };
    const claimed = event(id, 2, 'pending', 'submitting');
    const paidPayout: Payout = {
      ...claimedPayout,
      status: 'succeeded',
      version: 3,
      // A receipt as the sandbox gives one.
      receipt: {
        transactionId: '5a4db0c0-0000-4000-8008-000000000006',
        reference: '5a4db0c0-0000-4000-8013-000000000001',
        sessionId: '100004260302080000000000000015',
        status: 'SUCCESS',
        chargesKobo: 1075,
        paidAt: '2026-03-02T09:00:00+01:00',
      },
    };
    const paid = event(id, 3, 'submitting', 'succeeded');
    const carrying = (payout: Payout, ...events: AuditEvent[]) =>
      itemBytes(toPayoutItem(payout, { events: events.map(toStoredEvent), onKeyItem: 1 }));

    await store.transition({ before: pending, after: claimedPayout, audit: claimed, cap });
    const afterClaim = {
      auditItems: (await storedAuditItems(id)).map((item) => item.sk),
      carried: ((await payoutItem(id)).ev as unknown[] | undefined)?.length ?? 0,
    };
    commands.length = 0;
    await store.transition({ before: claimedPayout, after: paidPayout, audit: paid });
    const outcomeCommands = [...commands];
    expect(await trailOf(id)).toEqual([created, claimed, paid]);
    counted.destroy();
    return {
      afterClaim,
      outcomeCommands,
      bothFit: carrying(paidPayout, claimed, paid) <= 1000,
      outcomeAloneFits: carrying(paidPayout, paid) <= 1000,
      claimFits: carrying(claimedPayout, claimed) <= 1000,
    };
  }

  it('writes a claim’s event to an audit item in the claim: the payout has room for its outcome’s, one PutItem', async () => {
    const paid = await claimAndPay(
      'AUDITCLAIMMOVED0000000001',
      'supplier invoice 2041 for March 2026, paid from the main wallet account',
    );
    // The claim's event would fit on the claimed payout, and the outcome's alone on the paid one, but not both.
    expect(paid).toMatchObject({ claimFits: true, outcomeAloneFits: true, bothFit: false });
    expect(paid.afterClaim).toEqual({ auditItems: ['AUDIT#000002'], carried: 0 });
    expect(paid.outcomeCommands).toEqual(['PutItemCommand']);
  });

  it('reads a payout and trail stored before (long names, one audit item per write) and goes on in the new shape', async () => {
    const id = 'AUDITLEGACY0000000000001';
    const legacy = [event(id, 1, null, 'pending'), event(id, 2, 'pending', 'submitting')];
    const claimedPayout: Payout = { ...storedPayout(id), status: 'submitting', version: 2 };
    await doc.send(new PutCommand({ TableName: table.tableName, Item: longNamedItem(claimedPayout) }));
    for (const old of legacy) {
      await doc.send(
        new PutCommand({
          TableName: table.tableName,
          Item: { ...keys.audit(id, old.sequence), entity: 'audit', ...old },
        }),
      );
    }

    expect(await new PayoutAuditTrail(table.client, table.tableName).whole(id)).toEqual({
      payout: claimedPayout,
      audit: legacy,
    });

    // A store that did not read it (another process) reads the item again before writing its next event.
    const paid = event(id, 3, 'submitting', 'succeeded');
    const decided: Payout = { ...claimedPayout, status: 'succeeded', version: 3 };
    const elsewhere = new DynamoDbPayoutStore(table.client, table.tableName);
    await elsewhere.transition({ before: { ...claimedPayout }, after: decided, audit: paid });

    expect(await payoutItem(id)).not.toHaveProperty('amountKobo');
    expect(await new PayoutAuditTrail(table.client, table.tableName).whole(id)).toEqual({
      payout: decided,
      audit: [...legacy, paid],
    });
  });

  it('refuses a transition from a version the item no longer has, writing nothing', async () => {
    const id = 'AUDITSTALE00000000000001';
    const created = event(id, 1, null, 'pending');
    const payout = storedPayout(id);
    await table.store.create(payout, created);
    const next: Payout = { ...payout, version: 2, nextActionAt: '2026-03-02T09:00:00.000Z' };
    await table.store.transition({ before: payout, after: next, audit: event(id, 2, 'pending', 'pending') });

    const stale = table.store.transition({
      before: { ...payout },
      after: { ...payout, version: 2, status: 'cancelled' },
      audit: event(id, 2, 'pending', 'cancelled'),
    });

    await expect(stale).rejects.toBeInstanceOf(ConcurrentModificationError);
    expect((await table.store.get(id))?.status).toBe('pending');
    expect(await trailOf(id)).toHaveLength(2);
  });
});
