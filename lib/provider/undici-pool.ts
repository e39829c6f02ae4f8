import type { Dispatcher, Pool as UndiciPool } from 'undici';
import request from 'undici/lib/api/api-request.js';
import Pool from 'undici/lib/dispatcher/pool.js';

/**
 * undici's keep-alive `Pool` and its `request`, imported from their own modules rather than the package entry.
 *
 * Why: the entry loads every dispatcher, proxy agent, mock, cache store and WebSocket too. Bundled, that was
 * 520 KB of each Lambda and ~30 ms of its cold start, for one class and one function. These paths are internal
 * to undici, which is why it is pinned to an exact version; `test/provider/transport.test.ts` fails if they move.
 * The transport loads this module on first use (see HttpTransport), so nothing here runs at import.
 */
export type PoolOptions = UndiciPool.Options;

/** A keep-alive pool to one origin, with the one call the transport makes on it. */
export interface OriginPool {
  request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  close(): Promise<void>;
}

export function openPool(origin: string, options: PoolOptions): OriginPool {
  const pool = new Pool(origin, options);
  return {
    request: (requestOptions) => request.call(pool, requestOptions),
    close: () => pool.close(),
  };
}
