import { NetworkErrorKind, Phase } from './failure.js';
import {
  exchangeSignal,
  flatHeaders,
  originAndBasePath,
  type Transport,
  TransportError,
  type TransportRequest,
  type TransportResponse,
} from './transport.js';
import type { OriginPool, PoolOptions } from './undici-pool.js';

/** Timeouts of the HTTP transport, in milliseconds. */
export type TransportTimeouts = {
  /** TCP (and TLS) connect. */
  connectMs: number;
  /** From the end of sending to the response headers. */
  headersMs: number;
  /** Between two chunks of the response body. */
  bodyMs: number;
};

export const DEFAULT_TIMEOUTS: TransportTimeouts = { connectMs: 5_000, headersMs: 15_000, bodyMs: 15_000 };

/** Keep-alive connections per origin unless told otherwise; requests beyond it queue in the pool. */
export const DEFAULT_CONNECTIONS = 16;

/**
 * How long a keep-alive connection may sit unused before it is closed, by either transport (undici's and
 * NodeHttpTransport). A server may drop one idle for longer, and a request written to a dropped socket fails
 * after it may have been read.
 */
export const IDLE_CONNECTION_MS = 4_000;

/** Connection errors that happen before any byte of the request is written. */
const BEFORE_SEND_CODES: Record<string, NetworkErrorKind> = {
  ECONNREFUSED: NetworkErrorKind.ConnectRefused,
  UND_ERR_CONNECT_TIMEOUT: NetworkErrorKind.ConnectTimeout,
  ENOTFOUND: NetworkErrorKind.Dns,
  EAI_AGAIN: NetworkErrorKind.Dns,
  EHOSTUNREACH: NetworkErrorKind.ConnectRefused,
  ENETUNREACH: NetworkErrorKind.ConnectRefused,
};

const AFTER_SEND_CODES: Record<string, NetworkErrorKind> = {
  UND_ERR_HEADERS_TIMEOUT: NetworkErrorKind.Timeout,
  UND_ERR_BODY_TIMEOUT: NetworkErrorKind.Timeout,
  ECONNRESET: NetworkErrorKind.Reset,
  EPIPE: NetworkErrorKind.Reset,
  UND_ERR_SOCKET: NetworkErrorKind.Reset,
  UND_ERR_CLOSED: NetworkErrorKind.Reset,
};

/**
 * undici transport: one keep-alive connection pool per client and origin. The provider connection sends every
 * call that can move money over it, and reads over Node's own client (SplitTransport, NodeHttpTransport).
 *
 * undici is loaded on first use (or on `prepare`), not when this module is: evaluating it is ~10 ms of a cold
 * start, and the engine calls `prepare` while its claim is on the way to DynamoDB, so that time overlaps a
 * round trip it would otherwise follow. Bundled, the dynamic import stays in the one file and only its
 * evaluation is deferred.
 *
 * @example const transport = new HttpTransport('http://127.0.0.1:4010', { connectMs: 1000, headersMs: 5000, bodyMs: 5000 });
 */
export class HttpTransport implements Transport {
  readonly #origin: string;
  readonly #basePath: string;
  readonly #poolOptions: PoolOptions;
  #pool: Promise<OriginPool> | undefined;
  #closed = false;

  constructor(
    baseUrl: string,
    timeouts: TransportTimeouts = DEFAULT_TIMEOUTS,
    options: { connections?: number } = {},
  ) {
    ({ origin: this.#origin, basePath: this.#basePath } = originAndBasePath(baseUrl));
    this.#poolOptions = {
      connect: { timeout: timeouts.connectMs },
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyMs,
      keepAliveTimeout: IDLE_CONNECTION_MS,
      connections: options.connections ?? DEFAULT_CONNECTIONS,
    };
  }

  /** Loads undici and opens a connection to the provider ahead of the first request (see OriginPool). */
  async prepare(): Promise<void> {
    const pool = await this.#connectionPool().catch(() => undefined);
    pool?.connectAhead();
  }

  /** The pool, created on first use; a failed load is not cached, so the next request tries again. */
  #connectionPool(): Promise<OriginPool> {
    if (this.#closed) return Promise.reject(new Error('transport is closed'));
    this.#pool ??= import('./undici-pool.js')
      .then(({ openPool }) => openPool(this.#origin, this.#poolOptions))
      .catch((error: unknown) => {
        this.#pool = undefined;
        throw error;
      });
    return this.#pool;
  }

  async request(request: TransportRequest): Promise<TransportResponse> {
    let pool: OriginPool;
    try {
      pool = await this.#connectionPool();
    } catch (error) {
      throw new TransportError(NetworkErrorKind.Other, Phase.BeforeSend, 'HTTP client unavailable', {
        cause: error,
      });
    }
    const signal = exchangeSignal(request);
    try {
      const response = await pool.request({
        path: `${this.#basePath}${request.path}`,
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal,
        // undici closes the connection after a GET with a body unless told otherwise.
        reset: false,
      });
      const body = await response.body.text();
      return { status: response.statusCode, headers: flatHeaders(response.headers), body };
    } catch (error) {
      throw failureUnder(error, signal);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const pool = await this.#pool?.catch(() => undefined);
    await pool?.close();
  }
}

/** An exchange's failure, told by the signal it ran under (exchangeSignal) as a timeout, an abort or the error's own. */
export function failureUnder(error: unknown, signal: AbortSignal): TransportError {
  // A signal aborted by a timer (AbortSignal.timeout, the requester's call deadline) is a timeout, not a
  // caller's decision to give up.
  const timedOut = signal.reason?.name === 'TimeoutError';
  return toTransportError(error, signal.aborted && !timedOut, timedOut);
}

/** Maps an undici/Node error to a transport error; exported for tests. */
export function toTransportError(
  error: unknown,
  callerAborted: boolean,
  deadlinePassed: boolean,
): TransportError {
  const code = errorCode(error);
  const detail = code ?? 'network error';
  if (code !== undefined && code in BEFORE_SEND_CODES) {
    return new TransportError(BEFORE_SEND_CODES[code] ?? NetworkErrorKind.Other, Phase.BeforeSend, detail);
  }
  // An abort cannot tell whether the request was already written: assume it was.
  if (callerAborted)
    return new TransportError(NetworkErrorKind.Aborted, Phase.AfterSend, 'aborted by caller');
  if (deadlinePassed) return new TransportError(NetworkErrorKind.Timeout, Phase.AfterSend, 'request timeout');
  const kind =
    code === undefined ? NetworkErrorKind.Other : (AFTER_SEND_CODES[code] ?? NetworkErrorKind.Other);
  return new TransportError(kind, Phase.AfterSend, detail);
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  if (code !== undefined && code !== 'UND_ERR') return code;
  // Node's happy-eyeballs connect reports an AggregateError whose parts carry the codes.
  if (error instanceof AggregateError) {
    for (const part of error.errors) {
      const inner = errorCode(part);
      if (inner !== undefined) return inner;
    }
  }
  if ('cause' in error) return errorCode(error.cause);
  return code;
}
