import { Transactions } from '../provider/index.js';
import { AcceptedRefunds } from '../refunds/index.js';
import { StatementService, StatementStore } from '../statements/index.js';
import { payoutListingOf } from './payout-listing.js';
import { providerConnectionOf } from './provider-connection.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

/** The reports and lines alone (the API's reads): no provider, no engine. */
export function statementStoreOf(runtime: Runtime): StatementStore {
  return once(runtime, 'statementStore', () => new StatementStore(runtime.dynamoDb, runtime.tableName));
}

/**
 * The daily statement's reconciliation (the schedule and `POST /statements/{date}/run`): the provider's wallet
 * listing on the runtime's connection (the token only), the payouts' store and the engine's transitions, and the
 * refunds the provider accepted (read by key and by their index, never the refund store).
 */
export function statementsOf(runtime: Runtime): StatementService {
  return once(
    runtime,
    'statements',
    () =>
      new StatementService({
        store: statementStoreOf(runtime),
        transactions: new Transactions(providerConnectionOf(runtime).requester),
        engine: runtime.payouts.ctx,
        listing: payoutListingOf(runtime),
        refunds: new AcceptedRefunds(runtime.dynamoDb, runtime.tableName),
        timeZone: runtime.env.STATEMENT_TIME_ZONE,
      }),
  );
}
