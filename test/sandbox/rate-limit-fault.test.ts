import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../lib/sandbox/index.js';
import { call, payoutBody, post, start } from './support.js';

let sandbox: Sandbox;
let nowMs = Date.parse('2026-03-02T08:00:00.000Z');

beforeAll(async () => {
  sandbox = await start({ now: () => new Date(nowMs) });
});
afterAll(() => sandbox.close());

const payout = (narration: string) =>
  post(sandbox, '/settlement/instant/payout', payoutBody({ narration, metadata: { payoutId: narration } }));

describe('the rate-limit fault', () => {
  it('answers 429 with Retry-After above perSecond requests in a second, and lets the rest through', async () => {
    const added = await call(sandbox, 'POST', '/__sandbox/faults', {
      body: { path: '/settlement/instant/payout', fault: 'rate-limit', perSecond: 2, times: 0 },
      token: null,
    });
    expect(added.status).toBe(200);
    const statuses = [];
    for (const narration of ['r1', 'r2', 'r3']) statuses.push((await payout(narration)).status);
    expect(statuses).toEqual([200, 200, 429]);
    const limited = await payout('r4');
    expect(limited.headers['retry-after']).toBe('1');
    expect(sandbox.ledger().operations).toHaveLength(2);
    expect(sandbox.stats().rateLimited).toBe(2);

    nowMs += 1000;
    expect((await payout('r5')).status).toBe(200);
    expect(sandbox.ledger().operations).toHaveLength(3);
  });

  it('needs perSecond', async () => {
    const refused = await call(sandbox, 'POST', '/__sandbox/faults', {
      body: { path: '/settlement/instant/payout', fault: 'rate-limit' },
      token: null,
    });
    expect(refused.status).toBe(400);
  });
});
