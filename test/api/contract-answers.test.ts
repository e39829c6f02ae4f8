import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes } from '../../lib/api/index.js';
import { providerOf } from '../../lib/runtime/provider.js';
import { windowAwayFromNow } from '../support/settlement-hours.js';
import { type ApiHarness, call, startApiHarness } from './support/harness.js';

/**
 * Answers the other API tests rarely produce, produced here so the harness checks them against
 * docs/openapi.json too (support/contract.ts): every route called unsigned in AWS, the 202 of a settlement
 * deferred outside the allowed hours, and the provider schedule views.
 */

const UNKNOWN_ID = '01JD0000000000000000000000';
const pathOf = (template: string) =>
  template
    .replace('{localDate}', '2099-01-01')
    .replace('{settlementId}', 'settlement-unknown')
    .replaceAll(/\{\w+\}/g, UNKNOWN_ID);

const VIEWER_ROLE = 'payouts-dev-operator-viewer';
const VIEWER = `arn:aws:sts::123456789012:assumed-role/${VIEWER_ROLE}/CognitoIdentityCredentials`;

describe('answers checked against the contract', () => {
  let h: ApiHarness;

  beforeAll(async () => {
    h = await startApiHarness({
      mode: 'aws',
      env: { OPS_API_ROLES: JSON.stringify({ [VIEWER_ROLE]: ['viewer'] }) },
    });
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers every route called without an IAM principal 401 before anything else, and changes nothing', async () => {
    const before = (await h.items()).length;
    const answers: string[] = [];
    for (const route of apiRoutes) {
      const reply = await call(h.api, {
        method: route.method,
        path: pathOf(route.path),
        ...(route.method !== 'GET' && { body: {}, headers: { 'idempotency-key': 'unsigned-call' } }),
      });
      answers.push(`${route.method} ${route.path} ${reply.status}`);
    }
    expect(answers).toEqual(apiRoutes.map((route) => `${route.method} ${route.path} 401`));
    expect((await h.items()).length).toBe(before);
  });

  it('documents the provider schedule views as they answer', async () => {
    for (const path of ['/provider/scheduled-payouts', '/provider/recurrent-payouts']) {
      const reply = await call(h.api, {
        method: 'GET',
        path,
        query: 'upcoming=true&limit=5',
        iamUserArn: VIEWER,
      });
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ items: expect.any(Array), bothSides: expect.any(Number) });
    }
  });

  it('documents the 202 of a settlement paid out outside the allowed hours: deferred, nothing recorded', async () => {
    const deferring = await startApiHarness({
      env: {
        SETTLEMENT_DESTINATION_BANK_CODE: '058',
        SETTLEMENT_DESTINATION_ACCOUNT_NUMBER: '0987654321',
        SETTLEMENT_DESTINATION_ACCOUNT_NAME: 'Demo Merchant Ltd',
        SETTLEMENT_SINCE: '2025-01-01T00:00:00Z',
        SETTLEMENT_ALLOWED_HOURS: windowAwayFromNow(),
      },
    });
    try {
      const { items } = await providerOf(deferring.runtime).settlements.list({ perPage: 100 });
      const settlement = items.find((s) => s.category === 'MERCHANT_SETTLEMENT' && s.status === 'SUCCESSFUL');
      const reply = await call(deferring.api, {
        method: 'POST',
        path: '/instant-settlements',
        principal: 'alice',
        body: { settlementId: settlement?.id },
      });
      expect(reply.status).toBe(202);
      expect(reply.body).toEqual({ outcome: 'deferred', reason: expect.stringContaining('allowed') });
      const payouts = await call(deferring.api, { method: 'GET', path: '/payouts' });
      expect(payouts.body.items).toEqual([]);
    } finally {
      await deferring.close();
    }
  });
});
