import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderClient } from '../../lib/provider/client.js';
import { StaticCredentialsSource } from '../../lib/provider/credentials.js';
import { ProviderRejectedError } from '../../lib/provider/errors.js';
import { REDACTED, withoutSecrets } from '../../lib/provider/redact.js';
import { json, startServer } from './support/http-server.js';

const TOKEN = 'tok_live_Zq8SECRETxY3';
const pins = fc.stringMatching(/^\d{4,6}$/);

describe('withoutSecrets', () => {
  it('gives the same text whatever the PIN is, for any text, including texts holding either PIN', () => {
    const texts = fc.tuple(pins, pins).chain(([pinA, pinB]) =>
      fc.record({
        pinA: fc.constant(pinA),
        pinB: fc.constant(pinB),
        text: fc
          .array(
            fc.oneof(
              fc.constant(pinA),
              fc.constant(pinB),
              fc.constant(TOKEN),
              fc.constantFrom(' ', '-', '.', '"pin":"', 'PIN ', 'Bearer ', 'amount ', '00'),
              fc.string({ unit: 'grapheme-ascii', maxLength: 6 }),
            ),
            { maxLength: 12 },
          )
          .map((parts) => parts.join('')),
      }),
    );
    fc.assert(
      fc.property(texts, ({ text, pinA, pinB }) => {
        const a = withoutSecrets(text, [{ token: TOKEN, pin: pinA }]);
        const b = withoutSecrets(text, [{ token: TOKEN, pin: pinB }]);
        expect(a).toBe(b);
      }),
      { numRuns: 2_000 },
    );
  });

  it('leaves a text with no credential in it unaltered, even when it contains the PIN as a substring', () => {
    const pin = '0000';
    for (const text of [
      'wallet 5a4db0c0-0000-4000-8000-000000000000 not found',
      'amount 4821 is above the amount paid 2000',
      'reference po_0000abc expired',
    ]) {
      expect(withoutSecrets(text, [{ token: TOKEN, pin }])).toBe(text);
    }
  });

  it('removes a value labelled as a credential, whatever it is', () => {
    const credentials = [{ token: TOKEN, pin: '1234' }];
    expect(withoutSecrets('you sent {"amount":5,"pin":"9876"}', credentials)).toBe(
      `you sent {"amount":5,"pin":"${REDACTED}"}`,
    );
    expect(withoutSecrets('invalid PIN 4821 supplied', credentials)).toBe(`invalid PIN ${REDACTED} supplied`);
    expect(withoutSecrets('header Authorization: Bearer abc.def', credentials)).toBe(
      `header Authorization: Bearer ${REDACTED}`,
    );
    expect(withoutSecrets('pin=0000&token=xyz', credentials)).toBe(`pin=${REDACTED}&token=${REDACTED}`);
  });

  it('removes the token only where a whole token equals it', () => {
    const credentials = [{ token: 'abc123', pin: '1234' }];
    expect(withoutSecrets('seen abc123, then abc1234 and xabc123', credentials)).toBe(
      `seen ${REDACTED}, then abc1234 and xabc123`,
    );
  });
});

describe('provider failure messages over HTTP', () => {
  let server: Awaited<ReturnType<typeof startServer>>;

  beforeAll(async () => {
    // A provider that refuses every refund with its own words, the caller's amount, and an echo of the body
    // (PIN included) the way a careless provider would.
    server = await startServer((request, res) => {
      const body: unknown = JSON.parse(request.body);
      const amount = typeof body === 'object' && body !== null ? Reflect.get(body, 'amount') : undefined;
      json(res, 422, {
        status: false,
        message: `amount ${String(amount)} is above the amount paid 2000; you sent ${request.body}`,
      });
    });
  });
  afterAll(() => server.close());

  async function refusal(pin: string, amount: number): Promise<ProviderRejectedError> {
    const client = new ProviderClient({
      baseUrl: server.url,
      credentials: new StaticCredentialsSource({ token: TOKEN, pin }),
      retry: { maxAttempts: 1 },
    });
    try {
      await client.wallets.transfer({ fromWalletId: 'a', toWalletId: 'b', amount, narration: 'n' });
    } catch (error) {
      if (error instanceof ProviderRejectedError) return error;
      throw error;
    } finally {
      await client.close();
    }
    throw new Error('the provider accepted the transfer');
  }

  it('answers equal requests with equal errors whatever the PIN is', async () => {
    await fc.assert(
      fc.asyncProperty(pins, fc.integer({ min: 1, max: 999_999 }), async (pin, amount) => {
        const reference = await refusal('7391', amount);
        const withPin = await refusal(pin, amount);
        expect(withPin.providerMessage).toBe(reference.providerMessage);
        expect(withPin.message).toBe(reference.message);
        expect(withPin.providerMessage).toContain(`amount ${amount} is above the amount paid 2000`);
        expect(withPin.providerMessage).toContain(`"pin":"${REDACTED}"`);
      }),
      { numRuns: 60 },
    );
  });

  it('keeps the PIN itself out of the error even when the provider echoes it', async () => {
    const error = await refusal('582039', 10);
    expect(JSON.stringify(error)).not.toContain('582039');
    expect(error.message).not.toContain('582039');
  });
});
