import {
  PayoutEngine,
  type PayoutProvider,
  ProviderPayoutGateway,
  ProviderPayoutSender,
} from '../payouts/index.js';
import {
  ChildAccounts,
  type ProviderConnection,
  Settlements,
  Transactions,
  Wallets,
} from '../provider/index.js';
import { pacedProviderConnectionOf, providerConnectionOf } from './provider-connection.js';
import { rateLimiterOf } from './rate-limiter.js';
import type { Runtime } from './runtime.js';
import { once } from './service-cache.js';

/**
 * The payout engine of a function that sends payouts or looks them up at the provider (submit, sweep, reconcile,
 * a review resolved as paid): the runtime's ledger (same store, clock, limits, metrics and pause state) with the
 * provider gateway on the runtime's connection. Built on first use; a function that never asks carries no gateway.
 */
export function payoutEngineOf(runtime: Runtime): PayoutEngine {
  return once(runtime, 'payoutEngine', () => engineOn(runtime, providerConnectionOf(runtime)));
}

/**
 * The reconciler's engine: its look-ups take their slots from the workers' pacer (rateLimiterOf), so a backlog
 * of unknown payouts is looked up at the provider's pace beside the sends, not refused with 429 and looked at
 * again a minute later. Its own key: where one runtime serves every job (`npm start`), the workers' engine stays
 * unpaced (they pace their sends themselves).
 */
export function reconcilingEngineOf(runtime: Runtime): PayoutEngine {
  return once(runtime, 'reconcilingEngine', () =>
    engineOn(runtime, pacedProviderConnectionOf(runtime, rateLimiterOf(runtime))),
  );
}

/**
 * The engine of a function that sends payouts and looks none up (the sweeper): its gateway carries no search of
 * the provider's records, which its bundle then leaves out. Its own key: where one runtime serves every job
 * (`npm start`), the others keep theirs.
 */
export function sendingEngineOf(runtime: Runtime): PayoutEngine {
  return once(
    runtime,
    'sendingEngine',
    () =>
      new PayoutEngine({
        ctx: {
          ...runtime.payouts.ctx,
          gateway: new ProviderPayoutSender(payoutProviderOn(providerConnectionOf(runtime))),
        },
      }),
  );
}

function engineOn(runtime: Runtime, connection: ProviderConnection): PayoutEngine {
  return new PayoutEngine({
    ctx: { ...runtime.payouts.ctx, gateway: new ProviderPayoutGateway(payoutProviderOn(connection)) },
  });
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
