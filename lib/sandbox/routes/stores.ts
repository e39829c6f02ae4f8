/** GET /branch/store, GET /branch/store/info and GET /branch/terminal/usage. */
import { toNaira } from '../../money.js';
import { PROVIDER_PATHS } from '../contract.js';
import { badRequest, notFound } from '../errors.js';
import { ok, type Reply, type SandboxRequest } from '../http.js';
import { walletById } from '../lookups.js';
import { block, newestFirst, paginate } from '../paging.js';
import type { Route, RouteContext } from '../route.js';
import { isoUtc } from '../time.js';
import { pagination, requiredQuery } from '../validate.js';

function listStores(req: SandboxRequest, ctx: RouteContext): Reply {
  const { page, perPage } = pagination(req.query);
  const stores = [...ctx.state.stores.values()];
  // The total covers every store of the merchant, not only the page.
  const totalKobo = stores.reduce((sum, s) => sum + walletById(ctx, s.walletId, 'walletId').balanceKobo, 0);
  const p = paginate(newestFirst(stores), page, perPage);
  return ok(
    {
      ...block(p),
      totalStoreBalance: toNaira(totalKobo),
      stores: p.items.map((s) => ({
        id: s.id,
        name: s.name,
        code: s.code,
        phoneNumber: s.phoneNumber,
        email: s.email,
        website: s.website,
        address: s.address,
        walletId: s.walletId,
        createdAt: isoUtc(s.createdAt),
      })),
    },
    'Stores retrieved successfully',
  );
}

function storeInfo(req: SandboxRequest, ctx: RouteContext): Reply {
  const storeId = requiredQuery(req.query, 'storeId');
  if (!/^\d{1,15}$/.test(storeId)) throw badRequest('storeId must be an integer');
  const store = ctx.state.stores.get(storeId);
  if (!store) throw notFound(`storeId: store ${storeId} not found`);
  const wallet = walletById(ctx, store.walletId, 'walletId');
  return ok(
    {
      id: store.id,
      name: store.name,
      code: store.code,
      phoneNumber: store.phoneNumber,
      email: store.email,
      website: store.website,
      address: store.address,
      createdAt: isoUtc(store.createdAt),
      agents: store.agents.map((a) => ({ ...a, createdAt: isoUtc(a.createdAt) })),
      wallet: {
        id: wallet.id,
        status: 'ACTIVE',
        bankName: wallet.bankName,
        accountName: wallet.accountName,
        accountNumber: wallet.accountNumber,
        bookedBalance: toNaira(wallet.balanceKobo),
        availableBalance: toNaira(wallet.balanceKobo),
      },
    },
    'Store retrieved successfully',
  );
}

function terminalUsage(req: SandboxRequest, ctx: RouteContext): Reply {
  const { page, perPage } = pagination(req.query);
  const p = paginate(newestFirst(ctx.state.terminalUsages), page, perPage);
  return ok({ ...block(p), usages: p.items }, 'Terminal usages retrieved successfully');
}

export const storeRoutes: readonly Route[] = [
  { method: 'GET', path: PROVIDER_PATHS.stores, handler: listStores },
  { method: 'GET', path: PROVIDER_PATHS.storeInfo, handler: storeInfo },
  { method: 'GET', path: PROVIDER_PATHS.terminalUsage, handler: terminalUsage },
];
