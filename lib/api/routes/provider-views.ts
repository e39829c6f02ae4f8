import { settlementSchema, storeSchema, walletTransactionSchema } from '../../provider/index.js';
import { presentProviderPage } from '../presenters.js';
import { parseQuery } from '../request.js';
import {
  ProviderSettlementPageSchema,
  ProviderStorePageSchema,
  ProviderWalletTransactionPageSchema,
} from '../responses/provider.js';
import { type Answers, type Route, type RouteRequest, reply, route } from '../router.js';
import { ProviderPageQuerySchema } from '../schemas.js';

/**
 * Read-through views of the provider's records for ops, one page at a time. Records are answered as the provider
 * sends them (amounts in naira), their known fields only, each string clipped to its maximum
 * (100 characters; lib/api/responses/provider.ts); a provider failure is a 502/503 problem, never a 500.
 */
async function settlements(request: RouteRequest<'provider'>) {
  const query = parseQuery(request.event, ProviderPageQuerySchema);
  return reply(
    200,
    presentProviderPage(await request.ctx.provider.settlements.list(query), settlementSchema),
  );
}

async function walletTransactions(request: RouteRequest<'provider'>) {
  const query = parseQuery(request.event, ProviderPageQuerySchema);
  return reply(
    200,
    presentProviderPage(await request.ctx.provider.transactions.listWallet(query), walletTransactionSchema),
  );
}

async function stores(request: RouteRequest<'provider'>) {
  const query = parseQuery(request.event, ProviderPageQuerySchema);
  return reply(200, presentProviderPage(await request.ctx.provider.stores.list(query), storeSchema));
}

/** A provider read that fails is a 502 or 503 problem, never a 500. */
const PROVIDER_READ_PROBLEMS = ['validation', 'provider-error', 'provider-unavailable'] as const;

export const providerViewRoutes: readonly Route<Answers, 'provider'>[] = [
  route({
    method: 'GET',
    path: '/provider/settlements',
    operationId: 'provider-settlements',
    summary: "One page of the provider's settlements (records as the provider sends them)",
    request: { query: ProviderPageQuerySchema },
    cli: { words: ['provider', 'settlements'], summary: 'settlements as the provider lists them' },
    role: 'viewer',
    responses: {
      200: { description: "one page of the provider's settlements", schema: ProviderSettlementPageSchema },
    },
    problems: PROVIDER_READ_PROBLEMS,
    handler: settlements,
  }),
  route({
    method: 'GET',
    path: '/provider/wallet-transactions',
    operationId: 'provider-wallet-transactions',
    summary: "One page of the provider's wallet transactions (records as the provider sends them)",
    request: { query: ProviderPageQuerySchema },
    cli: { words: ['provider', 'transactions'], summary: 'wallet transactions as the provider lists them' },
    role: 'viewer',
    responses: {
      200: {
        description: "one page of the provider's wallet transactions",
        schema: ProviderWalletTransactionPageSchema,
      },
    },
    problems: PROVIDER_READ_PROBLEMS,
    handler: walletTransactions,
  }),
  route({
    method: 'GET',
    path: '/provider/stores',
    operationId: 'provider-stores',
    summary: "One page of the provider's stores (records as the provider sends them)",
    request: { query: ProviderPageQuerySchema },
    cli: { words: ['provider', 'stores'], summary: 'stores as the provider lists them' },
    role: 'viewer',
    responses: { 200: { description: "one page of the provider's stores", schema: ProviderStorePageSchema } },
    problems: PROVIDER_READ_PROBLEMS,
    handler: stores,
  }),
];
