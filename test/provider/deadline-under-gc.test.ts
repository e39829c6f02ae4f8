import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderClient } from '../../lib/provider/client.js';
import { StaticCredentialsSource } from '../../lib/provider/credentials.js';
import { ProviderOutcomeUnknownError } from '../../lib/provider/errors.js';
import { type Sandbox, startSandbox } from '../../lib/sandbox/index.js';
import { signalWithDeadline } from '../../lib/shared/deadline.js';
import { underCollections } from '../support/garbage-collection.js';

/**
 * Deadlines that hold while garbage is collected. Node holds the sources of `AbortSignal.any` weakly, and a
 * timeout signal nobody holds is collected with its timer: a call's deadline then never comes (one provider call
 * in twenty answered after 400 ms despite a 100 ms deadline, before `signalWithDeadline`). Collections are forced
 * here every 2 ms (test/support/garbage-collection.ts).
 */
describe('signalWithDeadline', () => {
  it('aborts at its deadline with a TimeoutError, though only the signal is held and garbage is collected', {
    timeout: 5_000,
  }, async () => {
    const reason = await underCollections(() => {
      const signal = signalWithDeadline(30);
      return new Promise<unknown>((resolve) =>
        signal.addEventListener('abort', () => resolve(signal.reason)),
      );
    });
    expect(reason).toMatchObject({ name: 'TimeoutError' });
  });

  it("aborts with a caller's signal first, with its reason", async () => {
    const caller = new AbortController();
    const signal = signalWithDeadline(60_000, caller.signal);
    caller.abort(new Error('caller gave up'));
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toMatchObject({ message: 'caller gave up' });
  });
});

describe('provider calls keep their deadlines while garbage is collected', () => {
  let sandbox: Sandbox;
  let client: ProviderClient;
  beforeAll(async () => {
    sandbox = await startSandbox();
    client = new ProviderClient({
      baseUrl: sandbox.url,
      credentials: new StaticCredentialsSource({ token: sandbox.token, pin: sandbox.pin }),
      retry: { maxAttempts: 3, baseDelayMs: 0, sleep: async () => undefined },
    });
  });
  afterAll(async () => {
    await client.close();
    await sandbox.close();
  });

  const slowCredit = (options: { timeoutMs?: number; deadlineMs?: number }) => {
    sandbox.reset();
    sandbox.injectFault({ path: '/wallet/credit', fault: 'latency', latencyMs: 400 });
    const walletId = sandbox.fixtures().stores[0]?.walletId ?? '';
    return underCollections(() =>
      client.wallets.credit({ walletId, amount: 3, narration: 'slow' }, options).then(
        () => 'answered after its deadline',
        (error: unknown) => error,
      ),
    );
  };

  it.each([
    ['an attempt', { timeoutMs: 100 }],
    ['a whole call', { deadlineMs: 100 }],
  ])(
    '%s given 100 ms against a 400 ms answer ends at its deadline, ten times in ten',
    async (_what, options) => {
      for (let round = 0; round < 10; round++) {
        const outcome = await slowCredit(options);
        expect(outcome).toBeInstanceOf(ProviderOutcomeUnknownError);
        expect(outcome).toMatchObject({ reason: 'timeout' });
      }
    },
  );
});
