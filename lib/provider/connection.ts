import { abortableSleep } from './abortable-sleep.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './call-deadline.js';
import type { CredentialsSource } from './credentials.js';
import { DEFAULT_TIMEOUTS, HttpTransport, type TransportTimeouts } from './http-transport.js';
import { NodeHttpTransport } from './node-http-transport.js';
import { Requester } from './requester.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
import { SplitTransport } from './split-transport.js';
import type { Transport } from './transport.js';
import type { Logger } from './types.js';

export type ClientTimeouts = TransportTimeouts & {
  /** Default deadline of one HTTP attempt; `RequestOptions.timeoutMs` overrides it per call. */
  requestMs: number;
};

export type ClientRetryOptions = Partial<RetryPolicy> & {
  /** Injected for tests: how to wait between attempts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injected for tests: the jitter source, in [0, 1). */
  random?: () => number;
};

export type ProviderClientOptions = {
  /** e.g. `https://api.provider.example` or the sandbox's `url`. */
  baseUrl: string;
  credentials: CredentialsSource;
  timeouts?: Partial<ClientTimeouts>;
  retry?: ClientRetryOptions;
  /**
   * Most keep-alive connections to the provider at once (default 16), for reads and for payouts each. Requests
   * beyond it wait in the pool, so a sweep with a higher concurrency needs at least as many.
   */
  connections?: number;
  /**
   * Replaces the transports (tests, benchmarks): by default reads go over Node's HTTP client and everything else
   * over undici. `timeouts` other than `requestMs` then do not apply.
   */
  transport?: Transport;
  /**
   * Wraps the transport, whichever it is: `(inner) => new PacedTransport(inner, pacer)` paces every request of
   * the connection (the reconciler's look-ups). Given as a function so that only a function that paces bundles it.
   */
  wrapTransport?: (inner: Transport) => Transport;
  logger?: Logger;
};

export { DEFAULT_REQUEST_TIMEOUT_MS };

/**
 * The connection to the provider under every resource: the transport, the credentials and the request layer
 * (retries, the 401 refresh, parsing). It carries no resource: a resource is built on it by whoever calls it
 * (`new Refunds(connection.requester)`), the way stripe-node keeps one file per resource, so a function's
 * bundle holds only the resources its path calls. `ProviderClient` is every resource on one connection.
 *
 * @example
 * const connection = new ProviderConnection({ baseUrl, credentials });
 * const { data } = await new Refunds(connection.requester).create({ transactionId, amount: 100, customerNote, merchantNote });
 */
export class ProviderConnection {
  readonly requester: Requester;
  readonly #transport: Transport;
  readonly #credentials: CredentialsSource;

  constructor(options: ProviderClientOptions) {
    const timeouts = { ...DEFAULT_TIMEOUTS, requestMs: DEFAULT_REQUEST_TIMEOUT_MS, ...options.timeouts };
    const pool = { ...(options.connections !== undefined && { connections: options.connections }) };
    // Reads over Node's own HTTP client, payouts over undici (SplitTransport, NodeHttpTransport say why).
    const transport =
      options.transport ??
      new SplitTransport({
        reads: new NodeHttpTransport(options.baseUrl, timeouts, pool),
        writes: new HttpTransport(options.baseUrl, timeouts, pool),
      });
    this.#transport = options.wrapTransport?.(transport) ?? transport;
    this.#credentials = options.credentials;
    const { sleep, random, ...policy } = options.retry ?? {};
    this.requester = new Requester({
      transport: this.#transport,
      credentials: options.credentials,
      retry: { ...DEFAULT_RETRY_POLICY, ...policy },
      defaultTimeoutMs: timeouts.requestMs,
      logger: options.logger,
      sleep: sleep ?? abortableSleep,
      random: random ?? Math.random,
      now: Date.now,
    });
  }

  /**
   * Starts what the next call needs, the transport's code and the credentials (from Secrets Manager in AWS,
   * cached afterwards), without waiting for either and without calling the provider. For a caller that is about
   * to call and has a round trip of its own to wait on first: on a cold start both then overlap that round trip.
   * Failures are dropped here; the call meets and reports them.
   *
   * @example client.prepare(); const claimed = await claim(payout); await client.wallets.transfer(...);
   */
  prepare(): void {
    this.#transport.prepare?.().catch(() => undefined);
    this.#credentials.token().catch(() => undefined);
    // Only a source that holds a PIN (a function that sends money) reads it ahead; the others never ask.
    if (this.#credentials.holdsPin) this.#credentials.pin().catch(() => undefined);
  }

  /** Closes the keep-alive connections. */
  async close(): Promise<void> {
    await this.#transport.close();
  }
}
