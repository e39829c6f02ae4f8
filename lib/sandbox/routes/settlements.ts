/** GET /settlement: settlements of all four categories, filterable by status and category. */
import { toNaira } from '../../money.js';
import { PROVIDER_PATHS, SETTLEMENT_CATEGORY, SETTLEMENT_STATUS } from '../contract.js';
import { ok, type Reply, type SandboxRequest } from '../http.js';
import { block, newestFirst, paginate } from '../paging.js';
import type { Route, RouteContext } from '../route.js';
import type { Settlement } from '../state.js';
import { calendarDate, isoUtc } from '../time.js';
import { oneOfQuery, pagination } from '../validate.js';

function settlementView(s: Settlement) {
  return {
    id: s.id,
    amount: toNaira(s.amountKobo),
    status: s.status,
    date: calendarDate(s.createdAt),
    charges: toNaira(s.chargesKobo),
    category: s.category,
    createdAt: isoUtc(s.createdAt),
    // Only SUBACCOUNT_SETTLEMENT records carry the sub-account.
    ...(s.subaccount
      ? { subaccountId: s.subaccount.id, subaccount: { id: s.subaccount.id, name: s.subaccount.name } }
      : {}),
  };
}

function listSettlements(req: SandboxRequest, ctx: RouteContext): Reply {
  const { page, perPage } = pagination(req.query);
  const status = oneOfQuery(req.query, 'status', Object.values(SETTLEMENT_STATUS));
  const category = oneOfQuery(req.query, 'category', Object.values(SETTLEMENT_CATEGORY));
  const matching = ctx.state.settlements.filter(
    (s) =>
      (status === undefined || s.status === status) && (category === undefined || s.category === category),
  );
  const p = paginate(newestFirst(matching), page, perPage);
  return ok({ ...block(p), settlements: p.items.map(settlementView) }, 'Settlements retrieved successfully');
}

export const settlementRoutes: readonly Route[] = [
  { method: 'GET', path: PROVIDER_PATHS.settlements, handler: listSettlements },
];
