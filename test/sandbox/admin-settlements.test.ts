import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../lib/sandbox/index.js';
import { call, get, start } from './support.js';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await start();
});
beforeEach(() => {
  sandbox.reset();
});
afterAll(() => sandbox.close());

const addSettlement = (body: unknown) =>
  call(sandbox, 'POST', '/__sandbox/settlements', { body, token: null });

describe('POST /__sandbox/settlements', () => {
  it('adds a successful settlement that the provider listing shows first, and counts no provider request', async () => {
    const res = await addSettlement({ category: 'MERCHANT_SETTLEMENT', amountKobo: 250_000 });
    expect(res.status).toBe(200);
    const id = res.body.settlement.id;
    expect(typeof id).toBe('string');
    expect(sandbox.stats().requests).toEqual({});
    const listed = await get(sandbox, '/settlement', { perPage: '1' });
    expect(listed.body.data.settlements[0]).toMatchObject({
      id,
      status: 'SUCCESSFUL',
      category: 'MERCHANT_SETTLEMENT',
    });
  });

  it.each([
    ['an unknown category', { category: 'INSTANT_SETTLEMENT', amountKobo: 100 }, /category must be one of/],
    [
      'a fractional amount',
      { category: 'CARD_SETTLEMENT', amountKobo: 1.5 },
      /amountKobo must be an integer > 0/,
    ],
    ['a body that is not an object', ['MERCHANT_SETTLEMENT', 100], /settlement must be a JSON object/],
  ])('refuses %s with 400 and adds nothing', async (_case, body, message) => {
    const before = (await get(sandbox, '/settlement', { perPage: '100' })).body.data.settlements.length;
    const res = await addSettlement(body);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(message);
    expect((await get(sandbox, '/settlement', { perPage: '100' })).body.data.settlements).toHaveLength(
      before,
    );
  });
});
