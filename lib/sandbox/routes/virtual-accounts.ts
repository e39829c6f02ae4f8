/** GET /virtual-accounts?customerReference=...: read one virtual account (no `message`). */
import { PROVIDER_PATHS } from '../contract.js';
import { notFound } from '../errors.js';
import { ok, type Reply, type SandboxRequest } from '../http.js';
import type { Route, RouteContext } from '../route.js';
import { requiredQuery } from '../validate.js';

function readVirtualAccount(req: SandboxRequest, ctx: RouteContext): Reply {
  const reference = requiredQuery(req.query, 'customerReference');
  const account = ctx.state.virtualAccounts.get(reference);
  if (!account) throw notFound(`customerReference: virtual account ${reference} not found`);
  return ok(account);
}

export const virtualAccountRoutes: readonly Route[] = [
  { method: 'GET', path: PROVIDER_PATHS.virtualAccounts, handler: readVirtualAccount },
];
