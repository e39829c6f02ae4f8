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

  it('counts any one second, not calendar seconds, and only the requests it admitted (CONTRACT.md)', async () => {
    sandbox.reset();
    await call(sandbox, 'POST', '/__sandbox/faults', {
      body: { path: '/settlement/instant/payout', fault: 'rate-limit', perSecond: 2, times: 0 },
      token: null,
    });
    // Two at the very end of one calendar second, then one just after the next began: a window counted per
    // calendar second would admit it; the second before it already holds two.
    nowMs = Date.parse('2026-03-02T09:00:00.900Z');
    expect((await payout('s1')).status).toBe(200);
    expect((await payout('s2')).status).toBe(200);
    nowMs += 200;
    expect((await payout('s3')).status).toBe(429);
    // The refusal did not count: once the first two are a second old, two more are admitted.
    nowMs += 800;
    expect((await payout('s4')).status).toBe(200);
    expect((await payout('s5')).status).toBe(200);
    expect((await payout('s6')).status).toBe(429);
    expect(sandbox.stats().rateLimited).toBe(2);
  });

  it('needs perSecond', async () => {
    const refused = await call(sandbox, 'POST', '/__sandbox/faults', {
      body: { path: '/settlement/instant/payout', fault: 'rate-limit' },
      token: null,
    });
    expect(refused.status).toBe(400);
  });
});
