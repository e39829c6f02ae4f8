import { presentProviderPage } from '../presenters.js';
import { parseQuery } from '../request.js';
import type { Route, RouteRequest } from '../router.js';
import { ProviderPageQuerySchema } from '../schemas.js';

/**
 * Read-through views of the provider's records for ops, one page at a time. Records pass through as the
 * provider sends them (amounts in naira); a provider failure is a 502/503 problem, never a 500.
 */
async function settlements(request: RouteRequest) {
  const query = parseQuery(request.event, ProviderPageQuerySchema);
  return { status: 200, body: presentProviderPage(await request.ctx.provider.settlements.list(query)) };
}

async function walletTransactions(request: RouteRequest) {
  const query = parseQuery(request.event, ProviderPageQuerySchema);
  return {
    status: 200,
    body: presentProviderPage(await request.ctx.provider.transactions.listWallet(query)),
  };
}

async function stores(request: RouteRequest) {
  const query = parseQuery(request.event, ProviderPageQuerySchema);
  return { status: 200, body: presentProviderPage(await request.ctx.provider.stores.list(query)) };
}

export const providerViewRoutes: readonly Route[] = [
  { method: 'GET', path: '/provider/settlements', handler: settlements },
  { method: 'GET', path: '/provider/wallet-transactions', handler: walletTransactions },
  { method: 'GET', path: '/provider/stores', handler: stores },
];
