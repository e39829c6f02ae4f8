import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../lib/sandbox/index.js';
import { call, payoutBody, post, start } from './support.js';

let sandbox: Sandbox;
let nowMs = Date.parse('2026-03-02T08:00:00.000Z');

beforeAll(async () => {
  sandbox = await start({ now: () => new Date(nowMs) });
});
beforeEach(() => {
  sandbox.reset();
});
afterAll(() => sandbox.close());

const addFault = (fault: Record<string, unknown>) =>
  call(sandbox, 'POST', '/__sandbox/faults', { body: fault, token: null });
/** A payout carrying the engine's marker for a ULID payout id, as the engine sends it. */
const payoutId = (index: number) => `01KJQ3Z8V6W9X2Y4A7B1C3D${String(index).padStart(3, '0')}`;
const payout = (index: number, attempt?: number) =>
  post(
    sandbox,
    '/settlement/instant/payout',
    payoutBody({
      narration: `bench po_${payoutId(index)}${attempt === undefined ? '' : `_${attempt}`}`,
      metadata: { payoutId: payoutId(index) },
    }),
  );

async function statusesOf(count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let index = 0; index < count; index++) statuses.push((await payout(index)).status);
  return statuses;
}

describe('the random transient fault mode', () => {
  it('hits about the given share of requests, commits none of those it hits, and lets the rest through', async () => {
    const added = await addFault({ path: '*', fault: 'error-503', times: 0, probability: 0.25, seed: 42 });
    expect(added.status).toBe(200);
    const statuses = await statusesOf(200);
    const faulted = statuses.filter((status) => status === 503).length;
    // 200 draws at p = 0.25: 50 expected; the bounds are over 4 standard deviations (6.1) away.
    expect(faulted).toBeGreaterThan(25);
    expect(faulted).toBeLessThan(75);
    expect(statuses.filter((status) => status === 200)).toHaveLength(200 - faulted);
    expect(sandbox.ledger().operations).toHaveLength(200 - faulted);
  });

  it('hits the same requests again with the same seed, and others with another seed', async () => {
    await addFault({ path: '*', fault: 'error-503', times: 0, probability: 0.25, seed: 7 });
    const first = await statusesOf(60);
    sandbox.reset();
    await addFault({ path: '*', fault: 'error-503', times: 0, probability: 0.25, seed: 7 });
    expect(await statusesOf(60)).toEqual(first);
    sandbox.reset();
    await addFault({ path: '*', fault: 'error-503', times: 0, probability: 0.25, seed: 8 });
    expect(await statusesOf(60)).not.toEqual(first);
  });

  it('passes a request it spares on to the next matching fault', async () => {
    await addFault({ path: '*', fault: 'error-503', times: 0, probability: 0.5, seed: 3 });
    await addFault({ path: '*', fault: 'error-429', times: 0 });
    const statuses = await statusesOf(40);
    // Every request is faulted: those the random 503 spares meet the 429 behind it.
    expect(statuses.every((status) => status === 503 || status === 429)).toBe(true);
    expect(statuses).toContain(503);
    expect(statuses).toContain(429);
    expect(sandbox.ledger().operations).toHaveLength(0);
  });

  it.each([
    [{ path: '*', fault: 'error-503', probability: 0 }, 'probability'],
    [{ path: '*', fault: 'error-503', probability: 1.5 }, 'probability'],
    [{ path: '*', fault: 'error-503', probability: '0.25' }, 'probability'],
    [{ path: '*', fault: 'rate-limit', perSecond: 2, probability: 0.5 }, 'probability'],
    [{ path: '*', fault: 'error-503', probability: 0.5, seed: -1 }, 'seed'],
    [{ path: '*', fault: 'error-503', seed: 4 }, 'seed'],
  ])('refuses %j with a 400 naming %s and queues nothing', async (fault, field) => {
    const refused = await addFault(fault);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain(field);
    expect((await call(sandbox, 'GET', '/__sandbox/faults', { token: null })).body.faults).toEqual([]);
  });
});

describe('the marked-request log', () => {
  it("records each request carrying a payout's marker with its arrival time and the fault that answered it", async () => {
    nowMs = Date.parse('2026-03-02T09:00:00.000Z');
    await addFault({ path: '/settlement/instant/payout', fault: 'error-503' });
    expect((await payout(1)).status).toBe(503);
    nowMs += 1500;
    expect((await payout(1, 2)).status).toBe(200);
    nowMs += 10;
    // No marker: a provider request all the same, but nothing to record for a payout.
    await post(sandbox, '/settlement/instant/payout', payoutBody({ narration: 'no marker' }));
    const { status, body } = await call(sandbox, 'GET', '/__sandbox/marked-requests', { token: null });
    expect(status).toBe(200);
    expect(body.requests).toEqual([
      {
        payoutId: payoutId(1),
        attempt: 1,
        method: 'POST',
        path: '/settlement/instant/payout',
        atMs: Date.parse('2026-03-02T09:00:00.000Z'),
        fault: 'error-503',
      },
      {
        payoutId: payoutId(1),
        attempt: 2,
        method: 'POST',
        path: '/settlement/instant/payout',
        atMs: Date.parse('2026-03-02T09:00:01.500Z'),
      },
    ]);
    expect(sandbox.markedRequests()).toEqual(body.requests);
    sandbox.reset();
    expect(sandbox.markedRequests()).toEqual([]);
  });

  it('records a request a rate-limit fault refused as rate-limit, and one it admitted without a fault', async () => {
    nowMs = Date.parse('2026-03-02T10:00:00.000Z');
    await addFault({ path: '*', fault: 'rate-limit', perSecond: 1, times: 0 });
    expect((await payout(1)).status).toBe(200);
    expect((await payout(2)).status).toBe(429);
    expect(sandbox.markedRequests().map((request) => request.fault)).toEqual([undefined, 'rate-limit']);
  });
});
