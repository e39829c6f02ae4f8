import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, call, startApiHarness } from './support/harness.js';

/**
 * Issue 13, finding 8: secret redaction replaced substrings, so a refund of 482100 kobo (4821 naira) answered
 * "amount [REDACTED] is above the amount paid" when the PIN was 4821 (an oracle for the PIN), and with
 * PIN 0000 ids were stored as "5a4db0c0-[REDACTED]-4000-...". Stored and returned texts are now the
 * provider's own, whatever the PIN.
 */
const refund = (h: ApiHarness, body: Record<string, unknown>, key: string) =>
  call(h.api, {
    method: 'POST',
    path: '/refunds',
    headers: { 'Idempotency-Key': key },
    body: { customerNote: 'sorry', merchantNote: 'duplicate payment', ...body },
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

  it('does not reveal the PIN 4821 when a refund of 482100 kobo is refused for its amount', async () => {
    const paid = withPin4821.sandbox.fixtures().paymentLinkTransactions.find((t) => t.amountPaid < 4821);
    if (!paid) throw new Error('the sandbox has no transaction paid below 4821 naira');
    const reply = await refund(withPin4821, { transactionId: paid.id, amount: 482_100 }, 'rf-oracle-4821');
    expect(reply.status).toBe(201);
    expect(reply.body.status).toBe('rejected');
    expect(reply.body.status).toBe('rejected');
    const expected = `amount 4821 is above the amount paid ${paid.amountPaid}`;
    expect(reply.body.failure).toEqual({ code: 'PROVIDER_REJECTED', message: expected });
    // What is stored is the same text, unaltered.
    const fetched = await call(withPin4821.api, { method: 'GET', path: `/refunds/${reply.body.id}` });
    expect(fetched.body.failure.message).toBe(expected);
    const stored = JSON.stringify(await withPin4821.items());
    expect(stored).toContain(expected);
    expect(stored).not.toContain('REDACTED');
  });

  it('stores an id holding the PIN as one of its groups unaltered (PIN 0000)', async () => {
    const id = '5a4db0c0-0000-4000-8000-000000000000';
    const reply = await refund(withPin0000, { transactionId: id, amount: 1_000 }, 'rf-oracle-0000');
    expect(reply.body.failure).toEqual({
      code: 'PROVIDER_REJECTED',
      message: `transactionId: transaction ${id} not found`,
    });
    const fetched = await call(withPin0000.api, { method: 'GET', path: `/refunds/${reply.body.id}` });
    expect(fetched.body.failure.message).toContain(id);
    expect(JSON.stringify(await withPin0000.items())).not.toContain('REDACTED');
  });
});
