import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProviderClient } from '../../lib/provider/client.js';
import type { CredentialsSource } from '../../lib/provider/credentials.js';
import { StaticCredentialsSource } from '../../lib/provider/credentials.js';
import {
  ProviderInvalidRequestError,
  ProviderOutcomeUnknownError,
  ProviderRejectedError,
  ProviderUnavailableError,
} from '../../lib/provider/errors.js';
import { Phase } from '../../lib/provider/failure.js';
import { HttpTransport } from '../../lib/provider/http-transport.js';
import {
  SecretsManagerCredentialsSource,
  type SecretsManagerLike,
} from '../../lib/provider/secrets-manager-credentials.js';
import { CONNECT_AHEAD_MAX_IDLE_MS } from '../../lib/provider/undici-pool.js';
import { closedPort, type Handler, json, startServer } from './support/http-server.js';
import { bodies } from './support/payloads.js';

const credentials = new StaticCredentialsSource({ token: 'test-token-1', pin: 'test-pin-1' });
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function setup(
  handler: Handler,
  options: { credentials?: CredentialsSource; maxAttempts?: number } = {},
) {
  const server = await startServer(handler);
  const delays: number[] = [];
  const client = new ProviderClient({
    baseUrl: server.url,
    credentials: options.credentials ?? credentials,
    timeouts: { requestMs: 2_000 },
    retry: {
      maxAttempts: options.maxAttempts ?? 3,
      baseDelayMs: 100,
      random: () => 0.5,
      sleep: async (ms) => {
        delays.push(ms);
      },
    },
  });
  cleanups.push(() => client.close(), server.close);
  return { server, client, delays };
}

const transfer = { fromWalletId: 'w-1', toWalletId: 'w-2', amount: 200, narration: 'payout p-1' };

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

describe('HTTP transport and request layer', () => {
  it('sends the bearer token, an empty JSON body on GETs, and the PIN only in wallet bodies', async () => {
    const { server, client } = await setup((req, res) =>
      json(res, 200, req.method === 'GET' ? bodies.stores : bodies.walletTransfer),
    );
    await client.stores.list({ page: 2, perPage: 50 });
    await client.wallets.transfer(transfer);
    const [get, post] = server.received;
    expect(get).toMatchObject({ method: 'GET', url: '/branch/store?page=2&perPage=50', body: '{}' });
    expect(get?.headers).toMatchObject({
      authorization: 'Bearer test-token-1',
      'content-type': 'application/json',
    });
    expect(JSON.parse(post?.body ?? '')).toEqual({ ...transfer, metadata: {}, pin: 'test-pin-1' });
  });

  it('keeps the connection alive across GETs with a body', async () => {
    const { server, client } = await setup((_req, res) => json(res, 200, bodies.stores));
    for (let i = 0; i < 10; i += 1) await client.stores.list({});
    // undici's pool may open a second socket while the first is finishing; it must not open one per GET.
    expect(server.connections()).toBeLessThanOrEqual(2);
  });

  it('retries a GET on 5xx with full-jitter exponential backoff, then succeeds', async () => {
    const { server, client, delays } = await setup((_req, res, i) =>
      i < 2 ? json(res, 503, { status: false, message: 'busy' }) : json(res, 200, bodies.stores),
    );
    const page = await client.stores.list({});
    expect(page.items).toHaveLength(1);
    expect(server.received).toHaveLength(3);
    expect(delays).toEqual([50, 100]);
  });

  it('gives up on a GET after maxAttempts with an unavailable error', async () => {
    const { server, client } = await setup((_req, res) => json(res, 500, { status: false, message: 'boom' }));
    const error = await failure(client.settlements.list({}));
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ reason: 'server-error', status: 500, attempts: 3 });
    expect(server.received).toHaveLength(3);
  });

  it('honours Retry-After on a 429 for a GET', async () => {
    const { client, delays } = await setup((_req, res, i) =>
      i === 0
        ? json(res, 429, { status: false, message: 'slow down' }, { 'retry-after': '2' })
        : json(res, 200, bodies.stores),
    );
    await client.stores.list({});
    expect(delays).toEqual([2_000]);
  });

  it('returns a 429 on a POST as unavailable with retryAfterMs, without retrying', async () => {
    const { server, client } = await setup((_req, res) =>
      json(res, 429, { status: false, message: 'slow down' }, { 'retry-after': '3' }),
    );
    const error = await failure(client.wallets.transfer(transfer));
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ reason: 'rate-limited', retryAfterMs: 3_000 });
    expect(server.received).toHaveLength(1);
  });

  it('does not retry a POST after a 5xx: outcome unknown', async () => {
    const { server, client } = await setup((_req, res) => json(res, 500, { status: false, message: 'boom' }));
    const error = await failure(
      client.settlements.instantPayout({
        amount: 294.9,
        bankCode: '058',
        accountNumber: '0123456789',
        accountName: 'A',
        narration: 'n',
      }),
    );
    expect(error).toBeInstanceOf(ProviderOutcomeUnknownError);
    expect(error).toMatchObject({
      reason: 'server-error',
      status: 500,
      method: 'POST',
      path: '/settlement/instant/payout',
    });
    expect(server.received).toHaveLength(1);
  });

  it('does not retry a POST whose connection is reset after sending: outcome unknown', async () => {
    const { server, client } = await setup((_req, res) => res.socket?.destroy());
    const error = await failure(client.wallets.transfer(transfer));
    expect(error).toBeInstanceOf(ProviderOutcomeUnknownError);
    expect(error).toMatchObject({ reason: 'reset' });
    expect(server.received).toHaveLength(1);
  });

  it('does not retry a PATCH that timed out: outcome unknown', async () => {
    const { server, client } = await setup(() => {
      /* never answers */
    });
    const error = await failure(
      client.bulkPayouts.updateItem({ bulkPayoutItemId: 'b-1' }, { timeoutMs: 150 }),
    );
    expect(error).toBeInstanceOf(ProviderOutcomeUnknownError);
    expect(error).toMatchObject({ reason: 'timeout', method: 'PATCH' });
    expect(server.received).toHaveLength(1);
  });

  it('retries a GET that timed out, then reports unavailable', async () => {
    const { server, client } = await setup(
      () => {
        /* never answers */
      },
      { maxAttempts: 2 },
    );
    const error = await failure(client.transactions.info({ transactionId: 't' }, { timeoutMs: 100 }));
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ reason: 'timeout', attempts: 2 });
    expect(server.received).toHaveLength(2);
  });

  it('reports a refused connection as unavailable, retrying even a POST (nothing was sent)', async () => {
    const port = await closedPort();
    const attempts: number[] = [];
    const client = new ProviderClient({
      baseUrl: `http://127.0.0.1:${port}`,
      credentials,
      retry: { maxAttempts: 2, baseDelayMs: 0, sleep: async (ms) => void attempts.push(ms) },
    });
    cleanups.push(() => client.close());
    const error = await failure(client.wallets.transfer(transfer));
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ reason: 'connect-refused', attempts: 2 });
  });

  it('on a 401 asks for fresh credentials once and repeats once', async () => {
    const calls: (boolean | undefined)[] = [];
    const rotating: CredentialsSource = {
      holdsPin: true,
      async token(options) {
        calls.push(options?.forceRefresh);
        return options?.forceRefresh ? 'fresh-token' : 'stale-token';
      },
      async pin() {
        return 'test-pin-1';
      },
    };
    const { server, client } = await setup(
      (req, res) =>
        req.headers.authorization === 'Bearer fresh-token'
          ? json(res, 200, bodies.walletTransfer)
          : json(res, 401, { status: false, message: 'bad token' }),
      { credentials: rotating },
    );
    const { data } = await client.wallets.transfer(transfer);
    expect(data.transactionId).toBe('t-1');
    expect(calls).toEqual([undefined, true]);
    expect(server.received.map((r) => r.headers.authorization)).toEqual([
      'Bearer stale-token',
      'Bearer fresh-token',
    ]);
  });

  it('treats a repeated 401 as final', async () => {
    const { server, client } = await setup((_req, res) =>
      json(res, 401, { status: false, message: 'bad token' }),
    );
    const error = await failure(client.stores.list({}));
    expect(error).toBeInstanceOf(ProviderRejectedError);
    expect(error).toMatchObject({ status: 401, kind: 'unauthorized', providerMessage: 'bad token' });
    expect(server.received).toHaveLength(2);
  });

  it('maps 4xx to a rejection with the provider message and never retries it', async () => {
    const { server, client } = await setup((_req, res) =>
      json(res, 422, { status: false, message: 'Insufficient balance' }),
    );
    const error = await failure(client.wallets.debit({ walletId: 'w', amount: 5, narration: 'n' }));
    expect(error).toMatchObject({
      status: 422,
      kind: 'unprocessable',
      providerMessage: 'Insufficient balance',
      code: 'PROVIDER_REJECTED',
    });
    expect(server.received).toHaveLength(1);
  });

  it('refuses amounts the endpoint cannot take, before sending anything', async () => {
    const { server, client } = await setup((_req, res) => json(res, 200, bodies.walletTransfer));
    await expect(client.wallets.transfer({ ...transfer, amount: 200.5 })).rejects.toBeInstanceOf(
      ProviderInvalidRequestError,
    );
    await expect(
      client.settlements.instantPayout({
        amount: 1.005,
        bankCode: '058',
        accountNumber: '0123456789',
        accountName: 'A',
        narration: 'n',
      }),
    ).rejects.toBeInstanceOf(ProviderInvalidRequestError);
    await expect(
      client.refunds.create({ transactionId: 't', amount: 0, customerNote: 'c', merchantNote: 'm' }),
    ).rejects.toBeInstanceOf(ProviderInvalidRequestError);
    expect(server.received).toHaveLength(0);
  });

  it('reports a caller abort of a GET as unavailable without retrying', async () => {
    const { server, client } = await setup(() => {
      /* never answers */
    });
    const controller = new AbortController();
    const pending = failure(client.stores.list({}, { signal: controller.signal }));
    while (server.received.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ reason: 'aborted' });
    expect(server.received).toHaveLength(1);
  });
});

describe('getting ready ahead of a call', () => {
  const list = {
    method: 'GET',
    path: '/branch/store',
    headers: {},
    body: undefined,
    timeoutMs: 2_000,
    signal: undefined,
  } as const;

  it('prepares the transport without sending anything, and the request after it is sent once', async () => {
    const server = await startServer((_req, res) => json(res, 200, bodies.stores));
    const transport = new HttpTransport(server.url);
    cleanups.push(() => transport.close(), server.close);

    await transport.prepare();
    expect(server.received).toHaveLength(0);
    await expect(transport.request(list)).resolves.toMatchObject({ status: 200 });
    expect(server.received).toHaveLength(1);
  });

  it('opens one connection ahead on prepare, sending nothing, and the request goes out on it', async () => {
    const server = await startServer((_req, res) => json(res, 200, bodies.stores));
    const transport = new HttpTransport(server.url);
    cleanups.push(() => transport.close(), server.close);

    await transport.prepare();
    await vi.waitFor(() => expect(server.connections()).toBe(1));
    expect(server.received).toHaveLength(0);
    await expect(transport.request(list)).resolves.toMatchObject({ status: 200 });
    expect(server.received).toHaveLength(1);
    expect(server.connections()).toBe(1);
  });

  it('closes a connection opened ahead that no request used, on close and after its idle limit', async () => {
    const server = await startServer((_req, res) => json(res, 200, bodies.stores));
    cleanups.push(server.close);
    const closing = new HttpTransport(server.url);
    await closing.prepare();
    await vi.waitFor(() => expect(server.openConnections()).toBe(1));
    await closing.close();
    await vi.waitFor(() => expect(server.openConnections()).toBe(0));

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const idle = new HttpTransport(server.url);
    cleanups.push(() => idle.close());
    try {
      await idle.prepare();
      await vi.waitFor(() => expect(server.openConnections()).toBe(1));
      vi.advanceTimersByTime(CONNECT_AHEAD_MAX_IDLE_MS);
    } finally {
      vi.useRealTimers();
    }
    await vi.waitFor(() => expect(server.openConnections()).toBe(0));
    // The request opens a connection of its own.
    await expect(idle.request(list)).resolves.toMatchObject({ status: 200 });
    expect(server.connections()).toBe(3);
    expect(server.received).toHaveLength(1);
  });

  it('refuses a request after close as not sent', async () => {
    const server = await startServer((_req, res) => json(res, 200, bodies.stores));
    cleanups.push(server.close);
    const transport = new HttpTransport(server.url);
    await transport.close();

    await expect(transport.request(list)).rejects.toMatchObject({
      name: 'TransportError',
      phase: Phase.BeforeSend,
    });
    expect(server.received).toHaveLength(0);
  });

  // No Secrets Manager engine runs here, so its client is replaced by one answering from a list.
  function secretsManager(answers: (string | Error)[]) {
    const requests: unknown[] = [];
    const client: SecretsManagerLike = {
      send: (async (command: { input: unknown }) => {
        requests.push(command.input);
        const answer = answers.shift();
        if (answer === undefined || answer instanceof Error) throw answer ?? new Error('no answer left');
        return { SecretString: answer };
      }) as SecretsManagerLike['send'],
    };
    return { client, requests };
  }

  it('fetches the credentials ahead, and the call after it uses them without fetching again', async () => {
    const { client: secrets, requests } = secretsManager(['{"token":"test-token-1"}']);
    const { server, client } = await setup((_req, res) => json(res, 200, bodies.stores), {
      credentials: new SecretsManagerCredentialsSource({ tokenSecretId: 'provider-token', client: secrets }),
    });

    client.prepare();
    expect(requests).toHaveLength(1);
    expect(server.received).toHaveLength(0);
    await client.stores.list({});
    expect(requests).toHaveLength(1);
    expect(server.received[0]?.headers.authorization).toBe('Bearer test-token-1');
  });

  it('does not keep a fetch ahead that failed: the call fetches again', async () => {
    const { client: secrets, requests } = secretsManager([
      new Error('throttled'),
      '{"token":"test-token-1"}',
    ]);
    const { server, client } = await setup((_req, res) => json(res, 200, bodies.stores), {
      credentials: new SecretsManagerCredentialsSource({ tokenSecretId: 'provider-token', client: secrets }),
    });

    client.prepare();
    // The failed fetch settles first (a call made while it is in flight shares it, and its failure).
    await new Promise((resolve) => setImmediate(resolve));
    await client.stores.list({});
    expect(requests).toHaveLength(2);
    expect(server.received).toHaveLength(1);
  });

  it('reads the PIN ahead only when it holds the PIN secret, and a wallet transfer carries it', async () => {
    const { client: secrets, requests } = secretsManager([
      '{"token":"test-token-1"}',
      '{"pin":"test-pin-1"}',
    ]);
    const { server, client } = await setup((_req, res) => json(res, 200, bodies.walletTransfer), {
      credentials: new SecretsManagerCredentialsSource({
        tokenSecretId: 'provider-token',
        pinSecretId: 'provider-pin',
        client: secrets,
      }),
    });
    client.prepare();
    expect(requests).toEqual([{ SecretId: 'provider-token' }, { SecretId: 'provider-pin' }]);
    await client.wallets.transfer(transfer);
    expect(requests).toHaveLength(2);
    expect(JSON.parse(server.received[0]?.body ?? '{}')).toMatchObject({ pin: 'test-pin-1' });
  });

  it('never asks for the PIN in a function without the PIN secret; a wallet transfer there is not sent', async () => {
    const { client: secrets, requests } = secretsManager(['{"token":"test-token-1"}']);
    const { server, client } = await setup((_req, res) => json(res, 200, bodies.stores), {
      credentials: new SecretsManagerCredentialsSource({ tokenSecretId: 'provider-token', client: secrets }),
    });
    client.prepare();
    await client.stores.list({});
    const error = await client.wallets.transfer(transfer).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ reason: 'credentials', attempts: 0 });
    expect(requests).toEqual([{ SecretId: 'provider-token' }]);
    expect(server.received).toHaveLength(1);
  });
});
