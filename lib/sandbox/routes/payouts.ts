/** GET /payout/single/recurrent, GET /payout/single/schedule and PATCH /payout/bulk/item. */
import { toNaira } from '../../money.js';
import { bankName } from '../banks.js';
import { revalidate } from '../bulk-items.js';
import { LIMITS, PROVIDER_PATHS, SCHEDULED_STATUS } from '../contract.js';
import { notFound } from '../errors.js';
import { ok, type Reply, type SandboxRequest } from '../http.js';
import { newestFirst, type Page, paginate } from '../paging.js';
import type { Route, RouteContext } from '../route.js';
import type { BulkPayoutItem, ScheduledPayout } from '../state.js';
import { isoUtc } from '../time.js';
import {
  epochMsQuery,
  integerAmount,
  objectBody,
  oneOfQuery,
  optionalString,
  pagination,
  requiredString,
} from '../validate.js';

/** The two single-payout lists name the page size `perpage`. */
const perpageBlock = <T>(p: Page<T>) => ({
  page: p.page,
  perpage: p.size,
  totalRecords: p.totalRecords,
  totalPages: p.totalPages,
});

function listRecurrent(req: SandboxRequest, ctx: RouteContext): Reply {
  const { page, perPage } = pagination(req.query);
  const p = paginate(newestFirst(ctx.state.recurrentPayouts), page, perPage);
  return ok({ records: p.items, ...perpageBlock(p) });
}

function scheduledView(s: ScheduledPayout) {
  return {
    id: s.id,
    email: s.email,
    amount: toNaira(s.amountKobo),
    status: s.status,
    charges: toNaira(s.chargesKobo),
    scheduleDate: isoUtc(s.scheduleDate),
    transactionId: s.transactionId,
    accountNumber: s.accountNumber,
    accountName: s.accountName,
    bankName: s.bankName,
    bankCode: s.bankCode,
    narration: s.narration,
    metadata: null,
    createdAt: isoUtc(s.createdAt),
  };
}

function listScheduled(req: SandboxRequest, ctx: RouteContext): Reply {
  const { page, perPage } = pagination(req.query);
  const status = oneOfQuery(req.query, 'status', Object.values(SCHEDULED_STATUS));
  const start = epochMsQuery(req.query, 'startDate');
  const end = epochMsQuery(req.query, 'endDate');
  const matching = ctx.state.scheduledPayouts.filter(
    (s) =>
      (status === undefined || s.status === status) &&
      (start === undefined || s.scheduleDate.getTime() >= start.getTime()) &&
      (end === undefined || s.scheduleDate.getTime() <= end.getTime()),
  );
  const p = paginate(
    newestFirst(matching, (s) => s.scheduleDate),
    page,
    perPage,
  );
  return ok({ records: p.items.map(scheduledView), ...perpageBlock(p) });
}

function bulkItemView(item: BulkPayoutItem) {
  return {
    id: item.id,
    accountName: item.accountName,
    accountNumber: item.accountNumber,
    bankCode: item.bankCode,
    bankName: bankName(item.bankCode) ?? '',
    reason: item.reason,
    isValid: item.isValid,
    createdAt: isoUtc(item.createdAt),
  };
}

/**
 * Applies the given fields and saves the item even when it fails validation (CONTRACT.md "Bulk payout items"):
 * wrong types and a non-integer or non-positive amount are 400; a malformed account number or an unknown bank code
 * is saved with `isValid: false` and a reason, because correcting such items is what this endpoint is for.
 */
function updateBulkItem(req: SandboxRequest, ctx: RouteContext): Reply {
  const body = objectBody(req.body);
  const id = requiredString(body, 'bulkPayoutItemId');
  const amountKobo = body.amount === undefined ? undefined : integerAmount(body.amount);
  const code = optionalString(body, 'bankCode');
  const number = optionalString(body, 'accountNumber');
  const text = optionalString(body, 'narration', { max: LIMITS.narrationMaxLength });
  const phone = optionalString(body, 'phoneNumber', { min: 0, max: 20 });
  const item = ctx.state.bulkItems.get(id);
  if (!item) throw notFound(`bulkPayoutItemId: bulk payout item ${id} not found`);
  if (amountKobo !== undefined) item.amountKobo = amountKobo;
  if (code !== undefined) item.bankCode = code;
  if (number !== undefined) item.accountNumber = number;
  if (text !== undefined) item.narration = text;
  if (phone !== undefined) item.phoneNumber = phone;
  revalidate(item);
  const siblings = newestFirst(
    [...ctx.state.bulkItems.values()].filter((i) => i.bulkPayoutId === item.bulkPayoutId),
  );
  return ok(
    {
      page: 1,
      size: siblings.length,
      totalRecords: siblings.length,
      totalPages: 1,
      records: siblings.map(bulkItemView),
    },
    'Bulk payout item updated successfully',
  );
}

export const payoutRoutes: readonly Route[] = [
  { method: 'GET', path: PROVIDER_PATHS.recurrentPayouts, handler: listRecurrent },
  { method: 'GET', path: PROVIDER_PATHS.scheduledPayouts, handler: listScheduled },
  { method: 'PATCH', path: PROVIDER_PATHS.bulkPayoutItem, handler: updateBulkItem },
];
