import type { CredentialsSource } from './credentials.js';
import { DEFAULT_TIMEOUTS, HttpTransport, type TransportTimeouts } from './http-transport.js';
import { Requester } from './requester.js';
import { BulkPayouts } from './resources/bulk-payouts.js';
import { ChildAccounts } from './resources/child-accounts.js';
import { PaymentLinks } from './resources/payment-links.js';
import { Payouts } from './resources/payouts.js';
import { Refunds } from './resources/refunds.js';
import { Settlements } from './resources/settlements.js';
import { Stores } from './resources/stores.js';
import { Transactions } from './resources/transactions.js';
import { VirtualAccounts } from './resources/virtual-accounts.js';
import { Wallets } from './resources/wallets.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
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
   * Most keep-alive connections to the provider at once (default 16). Requests beyond it wait in the pool,
   * so a sweep with a higher concurrency needs at least as many.
   */
  connections?: number;
  /** Replaces the undici transport (tests, benchmarks). `timeouts` other than `requestMs` then do not apply. */
  transport?: Transport;
  logger?: Logger;
};

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/**
 * Typed client of the provider: one property per resource, every method `(params, options?)`.
 * Amounts are major-unit numbers exactly as on the wire; convert with `lib/money.ts`.
 *
 * @example
 * const client = new ProviderClient({ baseUrl: sandbox.url, credentials: new EnvCredentialsSource() });
 * const { data } = await client.wallets.transfer({ fromWalletId, toWalletId, amount: 200, narration: 'payout p-1' });
 * for await (const s of client.settlements.listAll({ perPage: 100 }, { maxPages: 50 })) console.log(s.id);
 * await client.close();
 */
export class ProviderClient {
  readonly paymentLinks: PaymentLinks;
  readonly wallets: Wallets;
  readonly childAccounts: ChildAccounts;
  readonly settlements: Settlements;
  readonly transactions: Transactions;
  readonly payouts: Payouts;
  readonly bulkPayouts: BulkPayouts;
  readonly stores: Stores;
  readonly refunds: Refunds;
  readonly virtualAccounts: VirtualAccounts;
  readonly #transport: Transport;
  readonly #credentials: CredentialsSource;

  constructor(options: ProviderClientOptions) {
    const timeouts = { ...DEFAULT_TIMEOUTS, requestMs: DEFAULT_REQUEST_TIMEOUT_MS, ...options.timeouts };
    this.#transport =
      options.transport ??
      new HttpTransport(options.baseUrl, timeouts, {
        ...(options.connections !== undefined && { connections: options.connections }),
      });
    this.#credentials = options.credentials;
    const { sleep, random, ...policy } = options.retry ?? {};
    const requester = new Requester({
      transport: this.#transport,
      credentials: options.credentials,
      retry: { ...DEFAULT_RETRY_POLICY, ...policy },
      defaultTimeoutMs: timeouts.requestMs,
      logger: options.logger,
      sleep: sleep ?? abortableSleep,
      random: random ?? Math.random,
      now: Date.now,
    });
    this.paymentLinks = new PaymentLinks(requester);
    this.wallets = new Wallets(requester);
    this.childAccounts = new ChildAccounts(requester);
    this.settlements = new Settlements(requester);
    this.transactions = new Transactions(requester);
    this.payouts = new Payouts(requester);
    this.bulkPayouts = new BulkPayouts(requester);
    this.stores = new Stores(requester);
    this.refunds = new Refunds(requester);
    this.virtualAccounts = new VirtualAccounts(requester);
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

/** Waits `ms`, resolving early when the signal aborts (the caller then sees the abort). */
function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
