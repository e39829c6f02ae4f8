/**
 * POST /refund: records a refund request (status `pending`) against a payment-link transaction and debits the
 * main merchant wallet by its amount, with a `REFUND` wallet record whose `reference` is the refund's id
 * (CONTRACT.md, "A refund's wallet record").
 */
import { formatNaira, toKobo, toNaira } from '../../money.js';
import { LIMITS, PROVIDER_PATHS, WALLET_CATEGORY } from '../contract.js';
import { notFound, unprocessable } from '../errors.js';
import { ok, type Reply, type SandboxRequest } from '../http.js';
import { ID_GROUP } from '../ids.js';
import { commitMove } from '../operations.js';
import type { Route, RouteContext } from '../route.js';
import type { BankParty, WireRecord } from '../state.js';
import { isoUtc } from '../time.js';
import { decimalAmount, objectBody, requiredString } from '../validate.js';

/** Who paid the transaction, and so receives the refund: its originator (blank fields on card payments). */
function payerOf(transaction: WireRecord): BankParty {
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return {
    bankCode: text(transaction.originatorBankCode),
    bankName: text(transaction.originatorBankName),
    accountName: text(transaction.originatorAccountName),
    accountNumber: text(transaction.originatorAccountNumber),
  };
}

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
  // The money leaves the main wallet (422 insufficient balance, nothing recorded, when it cannot cover it); the
  // refund's id is allocated only once it did, and names the wallet record (its reference and narration).
  const move = commitMove(ctx, {
    path: PROVIDER_PATHS.refund,
    from: ctx.state.mainWallet(),
    beneficiary: payerOf(transaction),
    amountKobo,
    chargesKobo: 0,
    debitCategory: WALLET_CATEGORY.refund,
    narration: (reference) => `Refund ${reference}`,
    metadata: {},
    description: `Refund of ${formatNaira(amountKobo)} on payment-link transaction ${transactionId}`,
    withSession: false,
    reference: () => ctx.state.nextId(ID_GROUP.refund),
  });
  const { createdAt, reference: refundId } = move;
  ctx.state.refunds.push({
    id: refundId,
    transactionId,
    amountKobo,
    customerNote,
    merchantNote,
    createdAt,
  });
  return ok(
    {
      id: refundId,
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
