import { afterEach, describe, expect, it } from 'vitest';
import { NetworkErrorKind, Phase } from '../../lib/provider/failure.js';
import { HttpTransport, type TransportTimeouts } from '../../lib/provider/http-transport.js';
import { NodeHttpTransport } from '../../lib/provider/node-http-transport.js';
import { SplitTransport } from '../../lib/provider/split-transport.js';
import {
  type Transport,
  TransportError,
  type TransportRequest,
  type TransportResponse,
} from '../../lib/provider/transport.js';
import { closedPort, type Handler, json, startServer } from './support/http-server.js';

// The provider connection sends reads over Node's HTTP client and payouts over undici: both transports must
// answer, time out and fail with the same kinds and phases, which is what retries and outcomes are decided on.
const TRANSPORTS = [
  ['Node http', (url: string, timeouts: TransportTimeouts) => new NodeHttpTransport(url, timeouts)],
  ['undici', (url: string, timeouts: TransportTimeouts) => new HttpTransport(url, timeouts)],
] as const;

const TIMEOUTS: TransportTimeouts = { connectMs: 2_000, headersMs: 2_000, bodyMs: 2_000 };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function get(overrides: Partial<TransportRequest> = {}): TransportRequest {
  return {
    method: 'GET',
    path: '/settlement?page=1&perPage=10',
    headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
    body: '{}',
    timeoutMs: 5_000,
    signal: undefined,
    ...overrides,
  };
}

async function failureOf(promise: Promise<unknown>): Promise<TransportError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
  if (!(error instanceof TransportError)) throw error;
  return error;
}

describe.each(TRANSPORTS)('the %s transport', (_name, build) => {
  async function setup(handler: Handler, timeouts: Partial<TransportTimeouts> = {}) {
    const server = await startServer(handler);
    const transport = build(server.url, { ...TIMEOUTS, ...timeouts });
    cleanups.push(() => transport.close(), server.close);
    return { server, transport };
  }

  it('sends a GET with its JSON body and headers, and answers status, lower-case headers and body', async () => {
    const { server, transport } = await setup((_req, res) =>
      json(res, 201, { status: true }, { 'X-Request-Id': 'r-1' }),
    );
    const response = await transport.request(get());
    expect(response).toMatchObject({ status: 201, body: '{"status":true}' });
    expect(response.headers['x-request-id']).toBe('r-1');
    expect(server.received).toEqual([
      expect.objectContaining({ method: 'GET', url: '/settlement?page=1&perPage=10', body: '{}' }),
    ]);
    expect(server.received[0]?.headers).toMatchObject({ authorization: 'Bearer t', 'content-length': '2' });
  });

  it('keeps its connection alive across requests', async () => {
    const { server, transport } = await setup((_req, res) => json(res, 200, {}));
    for (let i = 0; i < 10; i += 1) await transport.request(get());
    expect(server.received).toHaveLength(10);
    expect(server.connections()).toBeLessThanOrEqual(2);
  });

  it('reports a refused connection as not sent', async () => {
    const transport = build(`http://127.0.0.1:${await closedPort()}`, TIMEOUTS);
    cleanups.push(() => transport.close());
    const error = await failureOf(transport.request(get()));
    expect(error).toMatchObject({ kind: NetworkErrorKind.ConnectRefused, phase: Phase.BeforeSend });
  });

  it('times out waiting for the headers, as a request that was sent', async () => {
    const { server, transport } = await setup(() => undefined, { headersMs: 100 });
    const error = await failureOf(transport.request(get()));
    expect(error).toMatchObject({ kind: NetworkErrorKind.Timeout, phase: Phase.AfterSend });
    expect(server.received).toHaveLength(1);
  });

  it('times out when the body stops coming', async () => {
    const { transport } = await setup(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"status":');
      },
      { bodyMs: 100 },
    );
    const error = await failureOf(transport.request(get()));
    expect(error).toMatchObject({ kind: NetworkErrorKind.Timeout, phase: Phase.AfterSend });
  });

  it('reports a connection cut in the middle of the body as a reset after sending', async () => {
    const { transport } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"status":', () => res.socket?.destroy());
    });
    const error = await failureOf(transport.request(get()));
    expect(error).toMatchObject({ kind: NetworkErrorKind.Reset, phase: Phase.AfterSend });
  });

  it('gives up at the request deadline as a timeout, and on the caller abort as an abort', async () => {
    const { server, transport } = await setup(() => undefined);
    const late = await failureOf(transport.request(get({ timeoutMs: 100 })));
    expect(late).toMatchObject({ kind: NetworkErrorKind.Timeout, phase: Phase.AfterSend });

    const controller = new AbortController();
    const pending = failureOf(transport.request(get({ signal: controller.signal })));
    while (server.received.length < 2) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect(await pending).toMatchObject({ kind: NetworkErrorKind.Aborted, phase: Phase.AfterSend });
  });

  it('refuses a request after close as not sent', async () => {
    const { server, transport } = await setup((_req, res) => json(res, 200, {}));
    await transport.close();
    const error = await failureOf(transport.request(get()));
    expect(error.phase).toBe(Phase.BeforeSend);
    expect(server.received).toHaveLength(0);
  });
});

describe('the provider connection’s split of reads and payouts', () => {
  class Recording implements Transport {
    readonly methods: string[] = [];
    prepared = 0;
    closed = false;
    async request(request: TransportRequest): Promise<TransportResponse> {
      this.methods.push(request.method);
      return { status: 200, headers: {}, body: '{}' };
    }
    async prepare(): Promise<void> {
      this.prepared += 1;
    }
    async close(): Promise<void> {
      this.closed = true;
    }
  }

  it('sends reads to one transport and every method that can move money to the other, readying only that one', async () => {
    const reads = new Recording();
    const writes = new Recording();
    const split = new SplitTransport({ reads, writes });
    await split.request(get());
    await split.request(get({ method: 'POST', body: '{"amount":1}' }));
    await split.request(get({ method: 'PATCH', body: '{}' }));
    await split.prepare();
    await split.close();
    expect(reads.methods).toEqual(['GET']);
    expect(writes.methods).toEqual(['POST', 'PATCH']);
    expect([reads.prepared, writes.prepared]).toEqual([0, 1]);
    expect([reads.closed, writes.closed]).toEqual([true, true]);
  });
});
