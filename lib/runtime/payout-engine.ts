import { type PayoutProvider, ProviderPayoutGateway } from '../payouts/adapters/provider-payout-gateway.js';
import { PayoutEngine } from '../payouts/payout-engine.js';
import type { ProviderConnection } from '../provider/connection.js';
import { ChildAccounts } from '../provider/resources/child-accounts.js';
import { Settlements } from '../provider/resources/settlements.js';
import { Transactions } from '../provider/resources/transactions.js';
import { Wallets } from '../provider/resources/wallets.js';
import { providerConnectionOf } from './provider-connection.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

/**
 * The payout engine of a function that sends payouts or looks them up at the provider (submit, sweep, reconcile,
 * a review resolved as paid): the runtime's ledger (same store, clock, limits, metrics and pause state) with the
 * provider gateway on the runtime's connection. Built on first use; a function that never asks carries no gateway.
 */
export function payoutEngineOf(runtime: Runtime): PayoutEngine {
  return once(
    runtime,
    'payoutEngine',
    () =>
      new PayoutEngine({
        ctx: {
          ...runtime.payouts.ctx,
          gateway: new ProviderPayoutGateway(payoutProviderOn(providerConnectionOf(runtime))),
        },
      }),
  );
}

/** The resources the engine sends and looks up payouts with, on the runtime's one connection. */
function payoutProviderOn(connection: ProviderConnection): PayoutProvider {
  const { requester } = connection;
  return {
    prepare: () => connection.prepare(),
    settlements: new Settlements(requester),
    wallets: new Wallets(requester),
    childAccounts: new ChildAccounts(requester),
    transactions: new Transactions(requester),
  };
}
