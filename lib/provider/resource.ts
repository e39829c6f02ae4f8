import type * as z from 'zod/mini';
import { assertAmount } from './amounts.js';
import type { ProviderPath } from './contract.js';
import type { HttpMethod } from './errors.js';
import { toPage } from './pagination.js';
import type { Query, Requester } from './requester.js';
import { envelope, type SuccessEnvelope } from './schemas/envelope.js';
import type { Page, PageParams, ProviderResult, RawPagination, RequestOptions } from './types.js';

/** One endpoint's call, built once from its definition; a resource's method sends it with its params. */
export type ProviderCall<P, R> = (requester: Requester, params: P, options?: RequestOptions) => Promise<R>;

/** A call declared as data: what it sends, and the schema its answer's `data` must match. */
export type MethodDefinition<P, T> = {
  method: HttpMethod;
  path: ProviderPath;
  /** The query, in the order it is sent; a key whose value is `undefined` is left out. */
  query?: (params: P) => Query;
  /** The JSON body, nothing else from the params; without one a call sends `{}`. */
  body?: (params: P) => Record<string, unknown>;
  /** Adds the PIN to the body (the three wallet operations, CONTRACT.md). */
  withPin?: true;
  /**
   * `params.amount` is checked to this precision before anything is sent (CONTRACT.md: whole naira on the
   * wallet endpoints, kobo elsewhere). Only where the params carry a required `amount`.
   */
  amount?: P extends { amount: number } ? 'whole-naira' | 'kobo' : never;
  data: z.ZodMiniType<T>;
  /**
   * The envelope carries a `message` except on the five endpoints the interface names (`'absent'`: tolerated if
   * present; schemas/envelope.ts).
   */
  message?: 'absent';
};

/** The `data` of a list: its pagination block and, under one key, the list itself. */
type ListData<K extends string> = RawPagination & { [key in K]: unknown[] };

/** The query of one page of a list, what a list's query starts with (CONTRACT.md, Pagination). */
export function pageQuery(params: PageParams): Query {
  return { page: params.page, perPage: params.perPage };
}

/**
 * A call declared as data, the way stripe-node's `StripeResource.method({ method, path })` declares one. It
 * answers the envelope's `message` and `data` (nothing else of the envelope); given `items`, the key of `data`
 * that holds a list, it answers a page: those items, the normalised pagination and the whole `data`.
 *
 * @example
 * const create = providerMethod({
 *   method: 'POST',
 *   path: PROVIDER_PATHS.refunds,
 *   amount: 'kobo',
 *   body: (params: RefundCreateParams) => ({ transactionId: params.transactionId, amount: params.amount }),
 *   data: refundSchema,
 * });
 * const list = providerMethod({ path: PROVIDER_PATHS.stores, query: pageQuery, items: 'stores', data: storeListData });
 */
export function providerMethod<P, K extends string, TData extends ListData<K>>(
  definition: MethodDefinition<P, TData> & { items: K },
): ProviderCall<P, Page<TData[K][number], TData>>;
export function providerMethod<P, T>(definition: MethodDefinition<P, T>): ProviderCall<P, ProviderResult<T>>;
export function providerMethod<P, T>(
  definition: MethodDefinition<P, T> & { items?: string },
): ProviderCall<P, ProviderResult<T>> {
  // Built once per endpoint, and (z.lazy) only on its first call.
  const schema = envelope(definition.data, definition.message);
  return async (requester, params, options) => {
    // A precision is declared only where P carries `amount: number` (MethodDefinition).
    if (definition.amount) assertAmount((params as { amount: number }).amount, definition.amount);
    const result = await requester.call(
      {
        method: definition.method,
        path: definition.path,
        query: definition.query?.(params),
        body: definition.body?.(params),
        withPin: definition.withPin,
        schema,
      },
      options,
    );
    const { items } = definition;
    // Only the first overload takes `items`: its `data` is a list's.
    const page = result as SuccessEnvelope<T & ListData<string>>;
    return items === undefined
      ? { message: result.message, data: result.data }
      : toPage(page, page.data[items] as unknown[]);
  };
}

/**
 * Base of every resource: the one `Requester` its methods send their calls on (credentials, the 401 refresh,
 * retries, parsing and error mapping). Each method is a prototype method `(params, options?)`, so a subclass
 * can override it, whose body sends the call its definition built.
 */
export abstract class ProviderResource {
  readonly #requester: Requester;

  constructor(requester: Requester) {
    this.#requester = requester;
  }

  /** Sends one call with the method's params. */
  protected send<P, R>(call: ProviderCall<P, R>, params: P, options: RequestOptions | undefined): Promise<R> {
    return call(this.#requester, params, options);
  }
}
