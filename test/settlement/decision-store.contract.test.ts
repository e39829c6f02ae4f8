import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SettlementDecisionStore } from '../../lib/settlement/decision-store.js';
import type { SettlementDecision, SettlementDeferral } from '../../lib/settlement/model.js';
import { DynamoDbSettlementDecisionStore } from '../../lib/settlement/store/dynamodb-decision-store.js';
import { InMemorySettlementDecisionStore } from '../../lib/settlement/store/in-memory-decision-store.js';
import { InvalidCursorError } from '../../lib/shared/errors.js';
import { createTestTable } from '../support/dynamodb.js';

/**
 * The settlement decisions' contract, run against the table (DynamoDB Local) and against memory, so the in-memory
 * store the service's unit tests use cannot drift from the one that ships. That a paid decision commits in its
 * payout's creation is the table's alone (settlement-service.test.ts).
 */
const closers: (() => void)[] = [];
afterAll(() => {
  for (const close of closers) close();
});

const implementations: [string, () => Promise<SettlementDecisionStore>][] = [
  [
    'DynamoDbSettlementDecisionStore',
    async () => {
      const table = await createTestTable('decision-store');
      closers.push(() => table.client.destroy());
      return new DynamoDbSettlementDecisionStore(table.client, table.tableName);
    },
  ],
  ['InMemorySettlementDecisionStore', async () => new InMemorySettlementDecisionStore()],
];

const system = { id: 'system:test', kind: 'system' } as const;
const snapshot = {
  status: 'SUCCESSFUL',
  category: 'CARD_SETTLEMENT',
  amountKobo: 250_000,
  date: '2026-03-02',
};
let ids = 0;
const nextId = () => `STL-${String(++ids).padStart(4, '0')}`;
const at = (minute: number) => `2026-03-02T09:${String(minute).padStart(2, '0')}:00.000Z`;
const decisionOf = (
  settlementId: string,
  overrides: Partial<SettlementDecision> = {},
): SettlementDecision => ({
  settlementId,
  decision: 'skipped',
  code: 'BELOW_MINIMUM',
  reason: 'below the minimum',
  settlement: snapshot,
  trigger: 'poll',
  decidedBy: system,
  decidedAt: at(30),
  ...overrides,
});
const deferralOf = (settlementId: string, minute: number): SettlementDeferral => ({
  settlementId,
  code: 'OUTSIDE_ALLOWED_HOURS',
  reason: `outside the allowed hours (${minute})`,
  settlement: snapshot,
  trigger: 'event',
  deferredBy: system,
  deferredAt: at(minute),
});

describe.each(implementations)('the settlement decision store contract: %s', (_name, storeOf) => {
  let store: SettlementDecisionStore;
  beforeAll(async () => {
    store = await storeOf();
  });

  it('keeps the first decision of a settlement and answers it to every later writer', async () => {
    const id = nextId();
    const first = decisionOf(id);
    expect(await store.record(first)).toEqual(first);
    const later = decisionOf(id, { decision: 'paid', payoutId: 'P1', reason: 'paying', trigger: 'api' });
    expect(await store.record(later)).toEqual(first);
    expect(await store.get(id)).toEqual(first);
    expect(await store.get(nextId())).toBeUndefined();
  });

  it('replaces a deferral with the latest one until a decision closes it, and keeps none after it', async () => {
    const id = nextId();
    expect(await store.recordDeferral(deferralOf(id, 1))).toBeUndefined();
    expect(await store.recordDeferral(deferralOf(id, 2))).toBeUndefined();
    expect(await store.deferral(id)).toEqual(deferralOf(id, 2));
    const decision = decisionOf(id);
    await store.record(decision);
    expect(await store.deferral(id)).toBeUndefined();
    expect(await store.recordDeferral(deferralOf(id, 3))).toEqual(decision);
    expect(await store.deferral(id)).toBeUndefined();
  });

  it('records when instant settlement was first turned on once, and answers that to every later caller', async () => {
    const first = await store.enabledSince(new Date('2026-03-01T00:00:00.000Z'));
    expect(first).toBe('2026-03-01T00:00:00.000Z');
    expect(await store.enabledSince(new Date('2026-04-01T00:00:00.000Z'))).toBe(first);
  });

  it('lists decisions and open deferrals newest first, by state, page by page, and refuses a cursor it did not issue', async () => {
    const [paid, skipped, deferred] = [nextId(), nextId(), nextId()];
    await store.record(
      decisionOf(paid, { decision: 'paid', payoutId: 'P2', reason: 'paying', decidedAt: at(41) }),
    );
    await store.record(decisionOf(skipped, { decidedAt: at(42) }));
    await store.recordDeferral(deferralOf(deferred, 43));
    const deferrals = await store.list({ state: 'deferred', limit: 10 });
    expect(deferrals.items).toEqual([{ kind: 'deferral', ...deferralOf(deferred, 43) }]);
    const paidOnes = await store.list({ state: 'paid', limit: 10 });
    expect(paidOnes.items.map((item) => item.settlementId)).toEqual([paid]);
    const first = await store.list({ limit: 2 });
    expect(first.items.map((item) => [item.kind, item.settlementId])).toEqual([
      ['deferral', deferred],
      ['decision', skipped],
    ]);
    const second = await store.list({ limit: 2, cursor: first.nextCursor });
    expect(second.items[0]?.settlementId).toBe(paid);
    await expect(store.list({ limit: 2, cursor: 'not-a-cursor' })).rejects.toBeInstanceOf(InvalidCursorError);
  });
});
