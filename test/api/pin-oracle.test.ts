import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, call, startApiHarness } from './support/harness.js';

/**
 * Secret redaction must not be an oracle: it once replaced substrings, so a provider message holding the PIN's digits
 * anywhere came back with "[REDACTED]" in their place: an oracle for the PIN (a refund of 482100 kobo answered
 * "amount [REDACTED] is above the amount paid" when the PIN was 4821), and with PIN 0000 ids were stored as
 * "5a4db0c0-[REDACTED]-4000-...". Stored and returned texts are now the provider's own, whatever the PIN.
 * (Refunds above the amount paid are now refused before the provider is called, so the attack is replayed
 * here with a wallet payout, which carries the PIN, to a wallet id holding the PIN's digits.)
 */
const walletPayout = (h: ApiHarness, destinationWalletId: string, key: string) =>
  call(h.api, {
    method: 'POST',
    path: '/payouts',
    headers: { 'Idempotency-Key': key },
    body: {
      type: 'wallet_transfer',
      amount: 482_100,
      currency: 'NGN',
      narration: 'pin oracle probe',
      sourceWalletId: h.sandbox.fixtures().merchantWalletId,
      destinationWalletId,
    },
    principal: 'dave',
  });

describe('PIN oracle through provider error messages', () => {
  let withPin4821: ApiHarness;
  let withPin0000: ApiHarness;

  beforeAll(async () => {
    withPin4821 = await startApiHarness({ sandbox: { pin: '4821' } });
    withPin0000 = await startApiHarness({ sandbox: { pin: '0000' } });
  });
  afterAll(async () => {
    await withPin4821?.close();
    await withPin0000?.close();
  });

  it.each([
    ['4821', () => withPin4821, '5a4db0c0-4821-4000-8000-000000004821'],
    ['0000', () => withPin0000, '5a4db0c0-0000-4000-8000-000000000000'],
  ])(
    'does not reveal the PIN %s through a refusal naming a wallet id that holds it',
    async (pin, harness, id) => {
      const h = harness();
      const reply = await walletPayout(h, id, `oracle-${pin}`);
      expect(reply.status).toBe(201);
      expect(reply.body.status).toBe('failed');
      const expected = `toWalletId: wallet ${id} not found`;
      expect(reply.body.failure).toMatchObject({ message: expected });
      // Stored the same, unaltered, and returned the same when read back.
      const fetched = await call(h.api, {
        method: 'GET',
        path: `/payouts/${reply.body.id}`,
        principal: 'dave',
      });
      expect(fetched.body.failure.message).toBe(expected);
      const stored = JSON.stringify(await h.items());
      expect(stored).toContain(expected);
      expect(stored).not.toContain('REDACTED');
    },
  );
});
