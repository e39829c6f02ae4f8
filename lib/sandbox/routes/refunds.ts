/** POST /refund: records a refund request (status `pending`) against a payment-link transaction. */
import { toKobo, toNaira } from '../../money.js';
import { LIMITS, PROVIDER_PATHS } from '../contract.js';
import { notFound, unprocessable } from '../errors.js';
import { ok, type Reply, type SandboxRequest } from '../http.js';
import { ID_GROUP } from '../ids.js';
import type { Route, RouteContext } from '../route.js';
import { isoUtc } from '../time.js';
import { decimalAmount, objectBody, requiredString } from '../validate.js';

function createRefund(req: SandboxRequest, ctx: RouteContext): Reply {
  const body = objectBody(req.body);
  const transactionId = requiredString(body, 'transactionId');
  const amountKobo = decimalAmount(body.amount);
  const note = { min: 0, max: LIMITS.noteMaxLength };
  const customerNote = requiredString(body, 'customerNote', note);
  const merchantNote = requiredString(body, 'merchantNote', note);
  const transaction = ctx.state.paymentLinkTransactions.find((t) => t.id === transactionId);
  if (!transaction) throw notFound(`transactionId: transaction ${transactionId} not found`);
  const paidKobo = typeof transaction.amountPaid === 'number' ? toKobo(transaction.amountPaid) : 0;
  if (amountKobo > paidKobo) {
    throw unprocessable(`amount ${toNaira(amountKobo)} is above the amount paid ${toNaira(paidKobo)}`);
  }
  const createdAt = ctx.now();
  const refund = {
    id: ctx.state.nextId(ID_GROUP.refund),
    transactionId,
    amountKobo,
    customerNote,
    merchantNote,
    createdAt,
  };
  ctx.state.refunds.push(refund);
  return ok(
    {
      id: refund.id,
      merchantId: ctx.state.merchant.id,
      transactionId,
      customerNote,
      merchantNote,
      amount: toNaira(amountKobo),
      status: 'pending',
      createdAt: isoUtc(createdAt),
      updatedAt: isoUtc(createdAt),
      deletedAt: null,
    },
    'Refund request created successfully',
  );
}

export const refundRoutes: readonly Route[] = [
  { method: 'POST', path: PROVIDER_PATHS.refund, handler: createRefund },
];
