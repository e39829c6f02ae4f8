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
  it('alters no text that holds no labelled credential and not the token, whatever digits it holds', () => {
    const texts = fc
      .array(
        fc.oneof(
          pins,
          fc.uuid(),
          fc.constantFrom(' ', '-', '.', ',', ':', 'amount ', 'wallet ', 'is above the amount paid '),
          fc.stringMatching(/^[a-z0-9 ]{0,8}$/),
        ),
        { maxLength: 12 },
      )
      .map((parts) => parts.join(''))
      .filter((text) => !/pin|bearer|token|secret|pass|key|authorization/i.test(text));
    fc.assert(
      fc.property(texts, (text) => {
        expect(withoutSecrets(text, [TOKEN])).toBe(text);
      }),
      { numRuns: 2_000 },
    );
  });

  it('leaves a text with no credential in it unaltered, even one holding 0000 (the sandbox PIN) inside an id', () => {
    for (const text of [
      'wallet 5a4db0c0-0000-4000-8000-000000000000 not found',
      'amount 4821 is above the amount paid 2000',
      'reference po_0000abc expired',
    ]) {
      expect(withoutSecrets(text, [TOKEN])).toBe(text);
    }
  });

  it('removes a value labelled as a credential, whatever it is', () => {
    const credentials = [TOKEN];
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
    const credentials = ['abc123'];
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
