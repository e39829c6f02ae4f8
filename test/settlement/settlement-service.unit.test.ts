import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayoutEngine } from '../../lib/payouts/payout-engine.js';
import { ProviderClient, StaticCredentialsSource } from '../../lib/provider/index.js';
import { type Sandbox, startSandbox } from '../../lib/sandbox/index.js';
import type { SettlementPolicy } from '../../lib/settlement/policy.js';
import { SettlementService } from '../../lib/settlement/settlement-service.js';
import { InMemorySettlementDecisionStore } from '../../lib/settlement/store/in-memory-decision-store.js';
import { ManualClock } from '../../lib/shared/clock.js';
import { NotFoundError } from '../../lib/shared/errors.js';
import { allDayPolicy } from './support.js';

/**
 * The settlement service against the decisions' port in memory (InMemorySettlementDecisionStore) and the provider
 * sandbox: the paths that record a decision or deferral alone (skips, deferrals, the cutoff, replays, the poll's
 * count). A settlement paid commits its decision in the payout's creating transaction, which only the table can
 * join: that path, and the store's own rules, are tested against DynamoDB Local (settlement-service.test.ts,
 * decision-store.contract.test.ts).
 */
let sandbox: Sandbox;
let client: ProviderClient;
const ops = { id: 'alice', kind: 'user' } as const;
const system = { id: 'system:test', kind: 'system' } as const;

/** The engine these paths never reach: any call to it fails the test. */
const unreachedEngine = new Proxy(
  {},
  {
    get: (_target, name) => {
      throw new Error(`the payout engine was reached (${String(name)})`);
    },
  },
) as PayoutEngine;

beforeAll(async () => {
  sandbox = await startSandbox();
  client = new ProviderClient({
    baseUrl: sandbox.url,
    credentials: new StaticCredentialsSource({ token: sandbox.token, pin: sandbox.pin }),
    retry: { baseDelayMs: 0, maxDelayMs: 0 },
  });
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});

function fresh(policy: Partial<SettlementPolicy> = {}, store = new InMemorySettlementDecisionStore()) {
  const clock = new ManualClock('2026-03-02T08:00:00.000Z');
  const service = new SettlementService({
    engine: unreachedEngine,
    provider: client,
    store,
    policy: { ...allDayPolicy, ...policy },
    clock,
  });
  return { clock, store, service };
}
const instantPayouts = () => sandbox.stats().requests['/settlement/instant/payout'] ?? 0;
async function seeded(category: string, status: 'SUCCESSFUL' | 'FAILED') {
  const { items } = await client.settlements.list({ perPage: 100 });
  const found = items.find((s) => s.category === category && s.status === status);
  if (!found) throw new Error(`no seeded ${status} ${category}`);
  return found;
}

describe('deciding not to pay', () => {
  it('records a FAILED settlement as skipped once, and answers that decision to every later trigger', async () => {
    const { service } = fresh();
    const failed = await seeded('CARD_SETTLEMENT', 'FAILED');
    const first = await service.payOut(failed.id, 'event', system);
    expect(first).toMatchObject({
      outcome: 'skipped',
      decision: { decision: 'skipped', code: 'SETTLEMENT_NOT_SUCCESSFUL', trigger: 'event' },
    });
    const again = await service.payOut(failed.id, 'api', ops);
    expect(again).toEqual(first);
    expect(instantPayouts()).toBe(0);
  });

  it('skips settlements below the minimum in a poll, and counts them as decided in the next', async () => {
    const { service } = fresh({ minimumKobo: 50_000_000 });
    expect(await service.poll()).toMatchObject({ skipped: 2, paid: 0, failed: 0, stoppedEarly: false });
    const card = await seeded('CARD_SETTLEMENT', 'SUCCESSFUL');
    expect(await service.decision(card.id)).toMatchObject({ decision: 'skipped', code: 'BELOW_MINIMUM' });
    expect(await service.poll()).toMatchObject({ alreadyDecided: 2, skipped: 0, paid: 0 });
    expect(instantPayouts()).toBe(0);
  });

  it('pays none of the settlements made before instant settlement was first turned on, keeping that cutoff', async () => {
    const { service, store, clock } = fresh({ since: undefined });
    const card = await seeded('CARD_SETTLEMENT', 'SUCCESSFUL');
    expect(await service.payOut(card.id, 'api', ops)).toMatchObject({
      outcome: 'skipped',
      decision: { code: 'BEFORE_CUTOFF' },
    });
    expect(await service.cutoff()).toBe(clock.now().toISOString());
    const later = fresh({ since: undefined }, store);
    later.clock.advance(24 * 60 * 60_000);
    expect(await later.service.cutoff()).toBe(await service.cutoff());
  });
});

describe('deferring outside the allowed hours', () => {
  const outsideHours = { allowedMinutes: { from: 8 * 60, to: 9 * 60 } };

  it('lists the latest deferral with its reason until a decision replaces it, then only the decision', async () => {
    const { service, store } = fresh(outsideHours);
    const card = await seeded('CARD_SETTLEMENT', 'SUCCESSFUL');
    expect(await service.payOut(card.id, 'event', system)).toMatchObject({ outcome: 'deferred' });
    expect(await service.payOut(card.id, 'poll', system)).toMatchObject({ outcome: 'deferred' });
    expect(await service.decision(card.id)).toBeUndefined();
    expect(await service.deferral(card.id)).toMatchObject({ code: 'OUTSIDE_ALLOWED_HOURS', trigger: 'poll' });
    expect((await service.list({ state: 'deferred', limit: 10 })).items).toEqual([
      expect.objectContaining({ kind: 'deferral', settlementId: card.id }),
    ]);

    // The next day inside the hours, under a policy that skips it: the skip closes the deferral.
    const inside = fresh({ ...outsideHours, minimumKobo: 50_000_000 }, store);
    inside.clock.set('2026-03-03T07:30:00.000Z'); // 08:30 Lagos
    expect(await inside.service.payOut(card.id, 'api', ops)).toMatchObject({ outcome: 'skipped' });
    expect(await service.deferral(card.id)).toBeUndefined();
    expect((await service.list({ state: 'deferred', limit: 10 })).items).toEqual([]);
    expect((await service.list({ state: 'skipped', limit: 10 })).items).toEqual([
      expect.objectContaining({ kind: 'decision', settlementId: card.id }),
    ]);
  });

  it('answers the recorded decision of a decided settlement triggered again outside the hours, and records no deferral', async () => {
    const store = new InMemorySettlementDecisionStore();
    const failed = await seeded('MERCHANT_SETTLEMENT', 'FAILED');
    const skipped = await fresh({}, store).service.payOut(failed.id, 'event', system);
    const outside = fresh(outsideHours, store);
    expect(await outside.service.payOut(failed.id, 'poll', system)).toEqual(skipped);
    expect(await outside.service.deferral(failed.id)).toBeUndefined();
  });
});

describe('looking a settlement up', () => {
  it('throws NotFoundError for an id the provider does not list, and records nothing', async () => {
    const { service } = fresh();
    await expect(service.payOut('STL-NOT-LISTED', 'api', ops)).rejects.toBeInstanceOf(NotFoundError);
    expect(await service.decision('STL-NOT-LISTED')).toBeUndefined();
    expect((await service.list({ limit: 10 })).items).toEqual([]);
  });
});
