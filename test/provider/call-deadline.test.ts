import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderClient } from '../../lib/provider/client.js';
import type { CredentialsSource } from '../../lib/provider/credentials.js';
import { StaticCredentialsSource } from '../../lib/provider/credentials.js';
import {
  OutcomeUnknownReason,
  ProviderOutcomeUnknownError,
  ProviderUnavailableError,
  UnavailableReason,
} from '../../lib/provider/errors.js';
import { type SilentServer, startSilentServer } from '../support/silent-server.js';

const credentials = new StaticCredentialsSource({ token: 'test-token-1', pin: 'test-pin-1' });
const payout = {
  amount: 294.9,
  bankCode: '058',
  accountNumber: '0123456789',
  accountName: 'Ada',
  narration: 'settle s-1',
};
let silent: SilentServer;
beforeAll(async () => {
  silent = await startSilentServer();
});
afterAll(async () => silent?.close());

async function timed(work: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  try {
    await work();
    return { error: undefined, ms: performance.now() - started };
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
}

function clientOf(options: { requestMs: number; credentials?: CredentialsSource }) {
  return new ProviderClient({
    baseUrl: silent.url,
    credentials: options.credentials ?? credentials,
    timeouts: { requestMs: options.requestMs },
    retry: { baseDelayMs: 0 },
  });
}

describe('a provider call against a peer that never answers', () => {
  it('gives a POST up at its deadline with an unknown outcome (it may have been applied), sent once', async () => {
    const client = clientOf({ requestMs: 300 });
    try {
      const before = silent.connections();
      const { error, ms } = await timed(() => client.settlements.instantPayout(payout));
      expect(error).toBeInstanceOf(ProviderOutcomeUnknownError);
      expect(error).toMatchObject({ reason: OutcomeUnknownReason.Timeout });
      expect(ms).toBeGreaterThanOrEqual(290);
      expect(ms).toBeLessThan(300 + 1_000);
      expect(silent.connections() - before).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('keeps a GET’s retries inside one call deadline: retried after each attempt’s timeout, given up as a whole', async () => {
    // Three attempts of 200 ms each would take 600 ms; the call's deadline is 450.
    const client = clientOf({ requestMs: 200 });
    try {
      const before = silent.connections();
      const { error, ms } = await timed(() => client.settlements.list({}, { deadlineMs: 450 }));
      expect(error).toBeInstanceOf(ProviderUnavailableError);
      expect(ms).toBeGreaterThanOrEqual(440);
      expect(ms).toBeLessThan(450 + 1_000);
      expect(silent.connections() - before).toBeGreaterThanOrEqual(2);
    } finally {
      await client.close();
    }
  });

  it('gives up at its deadline while the credentials are still being read, nothing sent', async () => {
    const never: CredentialsSource = {
      holdsPin: true,
      token: () => new Promise(() => undefined),
      pin: () => new Promise(() => undefined),
    };
    const client = clientOf({ requestMs: 200, credentials: never });
    try {
      const before = silent.connections();
      const { error, ms } = await timed(() => client.settlements.instantPayout(payout));
      expect(error).toBeInstanceOf(ProviderUnavailableError);
      expect(error).toMatchObject({ reason: UnavailableReason.Credentials });
      expect(ms).toBeLessThan(200 + 1_000);
      expect(silent.connections() - before).toBe(0);
    } finally {
      await client.close();
    }
  });
});
