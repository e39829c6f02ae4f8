import type { Socket } from 'node:net';
import type { buildConnector, Dispatcher, Pool as UndiciPool } from 'undici';
import request from 'undici/lib/api/api-request.js';
import buildConnectorOf from 'undici/lib/core/connect.js';
import Pool from 'undici/lib/dispatcher/pool.js';

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
   * the pool has none: the first request then finds the TCP (and, to a real provider, TLS) handshake done
   * instead of making it on the payout's critical path. Never sends anything.
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
