import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentClient, GetCommand } from '../../lib/shared/document-client.js';
import { createWithIdempotencyKey } from '../../lib/shared/idempotent-create.js';
import { createTestTable } from '../support/dynamodb.js';

let table: Awaited<ReturnType<typeof createTestTable>>;
let doc: DocumentClient;

beforeAll(async () => {
  table = await createTestTable('idempotent');
  doc = DocumentClient.from(table.client);
});
afterAll(() => table.client.destroy());

const attempt = (key: string, ownerId: string) =>
  createWithIdempotencyKey(doc, {
    tableName: table.tableName,
    key: { pk: `IDEMPOTENCY#test#${key}`, sk: 'IDEMPOTENCY' },
    ownerAttribute: 'thingId',
    ownerId,
    createdAt: '2026-03-02T08:00:00.000Z',
    items: [{ pk: `THING#${ownerId}`, sk: 'THING', entity: 'thing' }],
  });

describe('createWithIdempotencyKey', () => {
  it('lets exactly one of twelve concurrent writers create, and tells every other one the owner', async () => {
    const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => attempt('race', `owner-${i}`)));
    const created = outcomes.flatMap((outcome, i) => (outcome.created ? [`owner-${i}`] : []));
    expect(created).toHaveLength(1);
    for (const outcome of outcomes) {
      if (!outcome.created) expect(outcome.ownerId).toBe(created[0]);
    }
    const losers = outcomes.map((_, i) => `owner-${i}`).filter((id) => id !== created[0]);
    for (const loser of losers) {
      const { Item } = await doc.send(
        new GetCommand({ TableName: table.tableName, Key: { pk: `THING#${loser}`, sk: 'THING' } }),
      );
      expect(Item).toBeUndefined();
    }
  });

  it('answers with the owner on a later replay', async () => {
    expect(await attempt('later', 'first')).toEqual({ created: true });
    expect(await attempt('later', 'second')).toEqual({ created: false, ownerId: 'first' });
  });
});
