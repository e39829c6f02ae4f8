import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerOf } from '../../lib/runtime/provider.js';
import { type ApiHarness, call, startApiHarness } from './support/harness.js';

const settlementEnv = {
  SETTLEMENT_DESTINATION_BANK_CODE: '058',
  SETTLEMENT_DESTINATION_ACCOUNT_NUMBER: '0987654321',
  SETTLEMENT_DESTINATION_ACCOUNT_NAME: 'Demo Merchant Ltd',
  // The sandbox's settlements are from February 2025: a cutoff before them, as an operator paying history sets.
  SETTLEMENT_SINCE: '2025-01-01T00:00:00Z',
};

describe('instant settlements (ops API)', () => {
  let h: ApiHarness;

  beforeAll(async () => {
    h = await startApiHarness({ env: settlementEnv });
  });
  afterAll(async () => {
    await h.close();
  });

  it('pays a settlement on request, shows its decision, and lists decisions by state, page by page', async () => {
    const { items } = await providerOf(h.runtime).settlements.list({ perPage: 100 });
    const merchant = items.find((s) => s.category === 'MERCHANT_SETTLEMENT' && s.status === 'SUCCESSFUL');
    const failed = items.find((s) => s.category === 'MERCHANT_SETTLEMENT' && s.status === 'FAILED');
    const paid = await call(h.api, {
      method: 'POST',
      path: '/instant-settlements',
      principal: 'alice',
      body: { settlementId: merchant?.id },
    });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({
      outcome: 'paid',
      decision: { decision: 'paid', decidedBy: { id: 'alice' } },
    });
    const skipped = await call(h.api, {
      method: 'POST',
      path: '/instant-settlements',
      principal: 'alice',
      body: { settlementId: failed?.id },
    });
    expect(skipped.body).toMatchObject({
      outcome: 'skipped',
      decision: { code: 'SETTLEMENT_NOT_SUCCESSFUL' },
    });

    const shown = await call(h.api, { method: 'GET', path: `/instant-settlements/${merchant?.id}` });
    expect(shown.body).toMatchObject({ settlementId: merchant?.id, decision: 'paid' });

    const first = await call(h.api, { method: 'GET', path: '/instant-settlements', query: 'limit=1' });
    expect(first.body.items).toHaveLength(1);
    const second = await call(h.api, {
      method: 'GET',
      path: '/instant-settlements',
      query: `limit=1&cursor=${first.body.nextCursor}`,
    });
    expect([first.body.items[0].settlementId, second.body.items[0].settlementId].sort()).toEqual(
      [merchant?.id, failed?.id].sort(),
    );
    const onlyPaid = await call(h.api, { method: 'GET', path: '/instant-settlements', query: 'state=paid' });
    expect(onlyPaid.body.items.map((item: { settlementId: string }) => item.settlementId)).toEqual([
      merchant?.id,
    ]);
  });

  it('answers 400 naming the field for a tampered cursor or an unknown state, never a 500', async () => {
    const tampered = await call(h.api, {
      method: 'GET',
      path: '/instant-settlements',
      query: 'cursor=eyJwayI6MX0',
    });
    expect(tampered.status).toBe(400);
    expect(tampered.body.errors[0].path).toBe('cursor');
    const state = await call(h.api, { method: 'GET', path: '/instant-settlements', query: 'state=maybe' });
    expect(state.status).toBe(400);
    expect(state.body.errors[0].path).toContain('state');
  });

  it('answers 404 for a settlement with neither a decision nor a deferral', async () => {
    const reply = await call(h.api, { method: 'GET', path: '/instant-settlements/no-such-settlement' });
    expect(reply.status).toBe(404);
  });
});

describe('instant settlements not configured', () => {
  it('answers 503 not-configured to every settlement route', async () => {
    const h = await startApiHarness();
    try {
      const list = await call(h.api, { method: 'GET', path: '/instant-settlements' });
      expect(list.status).toBe(503);
      expect(list.body.type).toContain('not-configured');
    } finally {
      await h.close();
    }
  });
});
