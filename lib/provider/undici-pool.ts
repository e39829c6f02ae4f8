import type { Socket } from 'node:net';
import type { buildConnector, Dispatcher, Pool as UndiciPool } from 'undici';
import request from 'undici/lib/api/api-request.js';
import buildConnectorOf from 'undici/lib/core/connect.js';
import Pool from 'undici/lib/dispatcher/pool.js';
import { TYPE } from 'undici/lib/llhttp/constants.js';

/**
 * undici's keep-alive `Pool` and its `request`, imported from their own modules rather than the package entry.
 *
 * Why: the entry loads every dispatcher, proxy agent, mock, cache store and WebSocket too. Bundled, that was
 * 520 KB of each Lambda and ~30 ms of its cold start, for one class and one function. These paths are internal
 * to undici, which is why it is pinned to an exact version; `test/provider/transport.test.ts` fails if they move.
 * The transport loads this module on first use (see HttpTransport), so nothing here runs at import.
 */
export type PoolOptions = Omit<UndiciPool.Options, 'connect'> & {
  /** The connect timeout (undici's default, 10 s, without it). */
  readonly connect?: { readonly timeout?: number };
};

/** A keep-alive pool to one origin, with the one call the transport makes on it. */
export interface OriginPool {
  request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  /**
   * Opens a connection now, while the caller waits on something else (its claim on the way to DynamoDB), when
   * the pool has none, and readies undici's HTTP parser (warmHttpParser): the first request then finds the TCP
   * (and, to a real provider, TLS) handshake done and the parser compiled instead of doing both on the payout's
   * critical path. Never sends anything.
   */
  connectAhead(): void;
  close(): Promise<void>;
}

/**
 * How long a connection opened ahead may wait for its first request. Past it, it is closed and the request opens
 * its own: a server may drop a connection idle for long (undici's own keep-alive threshold is 4 s), and a request
 * written to a dropped socket fails after it may have been read.
 */
export const CONNECT_AHEAD_MAX_IDLE_MS = 2_000;

export function openPool(origin: string, options: PoolOptions): OriginPool {
  const connector = buildConnectorOf({
    ...(options.connect?.timeout !== undefined && { timeout: options.connect.timeout }),
  });
  let ahead: { socket: Promise<Socket | undefined>; timer: NodeJS.Timeout } | undefined;

  /** The pool's connector: the connection opened ahead if one is ready and still open, else a new one. */
  const connect: buildConnector.connector = (connectOptions, callback) => {
    const opened = ahead;
    ahead = undefined;
    if (!opened) return connector(connectOptions, callback);
    clearTimeout(opened.timer);
    void opened.socket.then((socket) => {
      if (socket && !socket.destroyed && socket.readyState === 'open') callback(null, socket);
      else connector(connectOptions, callback);
    });
  };
  const pool = new Pool(origin, { ...options, connect });
  return {
    request: (requestOptions) => request.call(pool, requestOptions),
    connectAhead() {
      if (ahead || pool.stats.connected > 0 || pool.closed || pool.destroyed) return;
      const { hostname, host, protocol, port } = new URL(origin);
      const socket = new Promise<Socket | undefined>((resolve) =>
        connector({ hostname, host, protocol, port }, (error, opened) => resolve(error ? undefined : opened)),
      );
      const timer = setTimeout(() => {
        if (ahead?.timer !== timer) return;
        ahead = undefined;
        void socket.then((unused) => unused?.destroy());
      }, CONNECT_AHEAD_MAX_IDLE_MS);
      // The process may end with nothing sent (a paused payout): the wait must not keep it alive.
      timer.unref();
      ahead = { socket, timer };
      // While the handshake is under way.
      warmHttpParser();
    },
    close: async () => {
      const unused = ahead;
      ahead = undefined;
      if (unused) {
        clearTimeout(unused.timer);
        void unused.socket.then((socket) => socket?.destroy());
      }
      await pool.close();
    },
  };
}

/** The callbacks undici's parser calls (client-h1.js): the throwaway parse ignores them all. */
const PARSER_CALLBACKS = [
  'wasm_on_url',
  'wasm_on_status',
  'wasm_on_message_begin',
  'wasm_on_header_field',
  'wasm_on_header_value',
  'wasm_on_headers_complete',
  'wasm_on_body',
  'wasm_on_message_complete',
] as const;

/** What the throwaway parse calls of llhttp's exports, as undici's Parser calls them. */
interface HttpParserExports {
  readonly memory: { readonly buffer: ArrayBuffer };
  llhttp_alloc(type: number): number;
  llhttp_execute(parser: number, data: number, length: number): number;
  llhttp_free(parser: number): void;
  malloc(size: number): number;
  free(pointer: number): void;
}

/** A provider's answer, as the throwaway parse reads it. */
const SAMPLE_RESPONSE = Buffer.from(
  'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nkeep-alive: timeout=5\r\n\r\n{}',
);

/** The part of the WebAssembly global the warm-up uses (the project's TypeScript libs declare none of it). */
interface WebAssemblyApi {
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (
    module: object,
    imports: Record<string, Record<string, () => number>>,
  ) => { readonly exports: object };
}

let httpParserWarmed: boolean | undefined;

/**
 * Readies undici's HTTP/1.1 parser ahead of its first response, once per process; true when all of it was done.
 *
 * Why: undici inflates and compiles its parser (llhttp, WebAssembly) when it makes its first connection, and V8
 * compiles each of the parser's functions on their first call: about 3 ms of the first provider call of a cold
 * start, measured in a fresh node. V8 keeps one compiled module per wire bytes, shared by every module and
 * instance made from the same bytes, so compiling them here and parsing one response with a throwaway instance
 * leaves undici's own compile and first parse finding that code ready. Called while a caller waits on something
 * else (connectAhead). Only a head start: on any failure undici compiles as it always does, and
 * test/provider/transport.test.ts holds this to the pinned undici.
 */
export function warmHttpParser(): boolean {
  httpParserWarmed ??= (() => {
    try {
      const ignore = () => 0;
      const env = Object.fromEntries(PARSER_CALLBACKS.map((name) => [name, ignore]));
      const bytes = httpParserBytes();
      if (!bytes) return false;
      const { WebAssembly: wasm } = globalThis as unknown as { WebAssembly: WebAssemblyApi };
      const instance = new wasm.Instance(new wasm.Module(bytes), { env });
      const parser = instance.exports as unknown as HttpParserExports;
      const handle = parser.llhttp_alloc(TYPE.RESPONSE);
      const data = parser.malloc(SAMPLE_RESPONSE.length);
      new Uint8Array(parser.memory.buffer, data, SAMPLE_RESPONSE.length).set(SAMPLE_RESPONSE);
      const parsed = parser.llhttp_execute(handle, data, SAMPLE_RESPONSE.length);
      parser.free(data);
      parser.llhttp_free(handle);
      return parsed === 0;
    } catch {
      return false;
    }
  })();
  return httpParserWarmed;
}

/**
 * undici's parser, the very bytes it compiles (in a bundle, inflated once from the packed copy; see
 * infra/bundling/shipped-dependencies.ts). Required, not imported: esbuild hands an ES import of a CommonJS module
 * a namespace copy of its exports, and for this Buffer that copy walks all its 72,000 indices (about 28 ms of a
 * cold start). Unbundled ES modules without `require` (`npm start` under tsx) get no head start.
 */
function httpParserBytes(): Uint8Array | undefined {
  if (typeof require !== 'function') return undefined;
  const bytes: unknown = require('undici/lib/llhttp/llhttp_simd-wasm.js');
  return bytes instanceof Uint8Array ? bytes : undefined;
}
