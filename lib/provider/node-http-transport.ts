import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { NetworkErrorKind, Phase } from './failure.js';
import {
  DEFAULT_CONNECTIONS,
  DEFAULT_TIMEOUTS,
  failureUnder,
  IDLE_CONNECTION_MS,
  type TransportTimeouts,
} from './http-transport.js';
import {
  exchangeSignal,
  flatHeaders,
  originAndBasePath,
  type Transport,
  TransportError,
  type TransportRequest,
  type TransportResponse,
} from './transport.js';

/**
 * Node's own `http`/`https` client as a transport: one keep-alive agent per client and origin, with the same
 * timeouts and the same failure phases as the undici transport (HttpTransport).
 *
 * Why a second client: the AWS SDK's HTTP handler has loaded Node's `http` and `https` by the time a function
 * makes its first provider call, where undici's own code and its WebAssembly parser cost a cold start about
 * 6 ms more before the first byte leaves. A function whose first provider call is a read (the settlement's
 * look-up) would pay that on its path; one whose first is a payout loads undici while its claim is on its way to
 * DynamoDB. The provider connection sends reads here and everything that can move money over undici
 * (ProviderConnection): see docs/cold-start.md.
 *
 * @example const transport = new NodeHttpTransport('http://127.0.0.1:4010', { connectMs: 1000, headersMs: 5000, bodyMs: 5000 });
 */
export class NodeHttpTransport implements Transport {
  readonly #origin: URL;
  readonly #basePath: string;
  readonly #timeouts: TransportTimeouts;
  readonly #agent: HttpAgent;
  readonly #request: typeof httpRequest;
  /** TLS: a new connection is ready once its handshake is done, not at its TCP connect. */
  readonly #secure: boolean;
  #closed = false;

  constructor(
    baseUrl: string,
    timeouts: TransportTimeouts = DEFAULT_TIMEOUTS,
    options: { connections?: number } = {},
  ) {
    const { origin, basePath } = originAndBasePath(baseUrl);
    this.#origin = new URL(origin);
    this.#basePath = basePath;
    this.#timeouts = timeouts;
    const agentOptions = {
      keepAlive: true,
      maxSockets: options.connections ?? DEFAULT_CONNECTIONS,
      // Node's agent closes a free socket once this passes without use; a socket in use is timed below.
      timeout: IDLE_CONNECTION_MS,
      scheduling: 'lifo' as const,
    };
    this.#secure = this.#origin.protocol === 'https:';
    this.#agent = this.#secure ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
    this.#request = this.#secure ? httpsRequest : httpRequest;
  }

  request(request: TransportRequest): Promise<TransportResponse> {
    if (this.#closed) {
      return Promise.reject(
        new TransportError(NetworkErrorKind.Other, Phase.BeforeSend, 'transport is closed'),
      );
    }
    const signal = exchangeSignal(request);
    return new Promise<TransportResponse>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const arm = (ms: number, failure: () => TransportError) => {
        clearTimeout(timer);
        timer = setTimeout(() => fail(failure()), ms);
      };
      /** Ends the exchange once, first come first served: false when it had ended already. */
      const settle = () => {
        if (settled) return false;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        return true;
      };
      const fail = (error: unknown) => {
        if (!settle()) return;
        outgoing.destroy();
        reject(error instanceof TransportError ? error : failureUnder(error, signal));
      };
      const onAbort = () => fail(signal.reason);
      const body = request.body ?? '';
      const outgoing = this.#request(new URL(`${this.#basePath}${request.path}`, this.#origin), {
        method: request.method,
        // A length, never chunked: the provider's GETs carry a body (an empty JSON object).
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: this.#agent,
      });
      outgoing.once('socket', (socket) => {
        // A reused keep-alive socket is connected already; a new one must connect within connectMs.
        if (!socket.connecting) return;
        arm(
          this.#timeouts.connectMs,
          () => new TransportError(NetworkErrorKind.ConnectTimeout, Phase.BeforeSend, 'connect timeout'),
        );
        socket.once(this.#secure ? 'secureConnect' : 'connect', () => clearTimeout(timer));
      });
      let answered = false;
      outgoing.once('finish', () => {
        // A server may answer before it has read the whole request: its body's timer then runs instead.
        if (answered) return;
        arm(
          this.#timeouts.headersMs,
          () => new TransportError(NetworkErrorKind.Timeout, Phase.AfterSend, 'headers timeout'),
        );
      });
      outgoing.once('response', (response: IncomingMessage) => {
        answered = true;
        const bodyTimeout = () =>
          new TransportError(NetworkErrorKind.Timeout, Phase.AfterSend, 'body timeout');
        arm(this.#timeouts.bodyMs, bodyTimeout);
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          arm(this.#timeouts.bodyMs, bodyTimeout);
        });
        response.on('error', fail);
        // Closed before its end: the connection was cut mid-body.
        response.once('close', () => {
          if (!response.complete)
            fail(Object.assign(new Error('response cut short'), { code: 'ECONNRESET' }));
        });
        response.once('end', () => {
          if (!settle()) return;
          resolve({
            status: response.statusCode ?? 0,
            headers: flatHeaders(response.headers),
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
      });
      // Every error, not just the first: a request destroyed after failing may report another, and `fail` settles once.
      outgoing.on('error', fail);
      if (signal.aborted) return fail(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      outgoing.end(body);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#agent.destroy();
  }
}
