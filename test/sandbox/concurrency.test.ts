import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toKobo } from '../../lib/money.js';
import type { Sandbox } from '../../lib/sandbox/index.js';
import { post, start } from './support.js';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await start();
});
afterAll(() => sandbox.close());

describe('concurrent money movement', () => {
  it('never overdraws a wallet and keeps balances equal to seed minus committed operations', async () => {
    const child = sandbox.fixtures().childAccounts[2]!; // seeded with 1,000.00
    const before = toKobo(sandbox.ledger().wallets.find((w) => w.id === child.walletId)!.balance);
    const attempts = Array.from({ length: 60 }, (_, i) =>
      post(sandbox, '/child/debit', { childAccountId: child.id, amount: 33.33, narration: `race ${i}` }),
    );
    const results = await Promise.all(attempts);
    const succeeded = results.filter((r) => r.status === 200).length;
    const refused = results.filter((r) => r.status === 422).length;
    expect(succeeded + refused).toBe(60);
    expect(succeeded).toBe(Math.floor(before / 3333));
    const after = toKobo(sandbox.ledger().wallets.find((w) => w.id === child.walletId)!.balance);
    expect(after).toBe(before - succeeded * 3333);
    expect(after).toBeGreaterThanOrEqual(0);
    expect(sandbox.ledger().operations.filter((o) => o.path === '/child/debit')).toHaveLength(succeeded);
  });
});
