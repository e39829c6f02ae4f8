import type { Dispatcher, Pool as UndiciPool } from 'undici';
import request from 'undici/lib/api/api-request.js';
import Pool from 'undici/lib/dispatcher/pool.js';

/**
 * undici's keep-alive `Pool` and its `request`, imported from their own modules rather than the package entry.
 *
 * Why: the entry loads every dispatcher, proxy agent, mock, cache store and WebSocket too. Bundled, that was
 * 520 KB of each Lambda and ~30 ms of its cold start, for one class and one function. These paths are internal
 * to undici, which is why it is pinned to an exact version; `test/provider/transport.test.ts` fails if they move.
 */
export type { UndiciPool as Pool };

export function createPool(origin: string, options: UndiciPool.Options): UndiciPool {
  return new Pool(origin, options);
}

export function poolRequest(
  pool: UndiciPool,
  options: Dispatcher.RequestOptions,
): Promise<Dispatcher.ResponseData> {
  return request.call(pool, options);
}
