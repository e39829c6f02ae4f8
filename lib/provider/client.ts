import { type ProviderClientOptions, ProviderConnection } from './connection.js';
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

export {
  type ClientRetryOptions,
  type ClientTimeouts,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type ProviderClientOptions,
} from './connection.js';

/**
 * Typed client of the provider: one property per resource, every method `(params, options?)`, on one
 * connection (given, or opened from the options). Amounts are major-unit numbers exactly as on the wire;
 * convert with `lib/money.ts`. A function that calls only some resources builds those on a `ProviderConnection`
 * instead, and its bundle carries no other.
 *
 * @example
 * const client = new ProviderClient({ baseUrl: sandbox.url, credentials: new EnvCredentialsSource() });
 * const { data } = await client.wallets.transfer({ fromWalletId, toWalletId, amount: 200, narration: 'payout p-1' });
 * for await (const s of client.settlements.listAll({ perPage: 100 }, { maxPages: 50 })) console.log(s.id);
 * await client.close();
 */
export class ProviderClient {
  readonly connection: ProviderConnection;
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

  constructor(options: ProviderClientOptions | ProviderConnection) {
    this.connection = options instanceof ProviderConnection ? options : new ProviderConnection(options);
    const { requester } = this.connection;
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

  /** See `ProviderConnection.prepare`. */
  prepare(): void {
    this.connection.prepare();
  }

  /** Closes the keep-alive connections. */
  close(): Promise<void> {
    return this.connection.close();
  }
}
