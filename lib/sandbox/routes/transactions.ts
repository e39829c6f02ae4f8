/** GET /transaction/wallet, GET /transaction/info (wallet and payment-link transactions) and GET /payout/details. */
import { toKobo, toNaira } from '../../money.js';
import { PROVIDER_PATHS, TRANSACTION_TYPE } from '../contract.js';
import { notFound } from '../errors.js';
import { ok, type Reply, type SandboxRequest } from '../http.js';
import { walletById } from '../lookups.js';
import { block, newestFirst, paginate } from '../paging.js';
import type { Route, RouteContext } from '../route.js';
import type { WalletTransaction, WireRecord } from '../state.js';
import { isoUtc } from '../time.js';
import { isoQuery, oneOfQuery, pagination, requiredQuery } from '../validate.js';

/** DEBIT settles amount + charges, CREDIT amount - charges. */
function settledKobo(t: WalletTransaction): number {
  return t.type === TRANSACTION_TYPE.debit ? t.amountKobo + t.chargesKobo : t.amountKobo - t.chargesKobo;
}

function bankFields(t: WalletTransaction) {
  return {
    originatorBankCode: t.originator.bankCode,
    originatorBankName: t.originator.bankName,
    originatorAccountName: t.originator.accountName,
    originatorAccountNumber: t.originator.accountNumber,
    beneficiaryBankCode: t.beneficiary.bankCode,
    beneficiaryBankName: t.beneficiary.bankName,
    beneficiaryAccountName: t.beneficiary.accountName,
    beneficiaryAccountNumber: t.beneficiary.accountNumber,
  };
}

function walletTransactionView(t: WalletTransaction) {
  return {
    id: t.id,
    type: t.type,
    status: 'SUCCESS',
    charges: toNaira(t.chargesKobo),
    reference: t.reference,
    category: t.category,
    amount: toNaira(t.amountKobo),
    sessionId: t.sessionId,
    description: t.description,
    settledAmount: toNaira(settledKobo(t)),
    createdAt: isoUtc(t.createdAt),
    ...(t.narration === undefined ? {} : { narration: t.narration }),
    ...bankFields(t),
    ...(t.funding
      ? {
          paidAt: isoUtc(t.createdAt),
          userId: t.funding.userId,
          walletType: 'STATIC',
          channelCode: t.funding.channelCode,
          transactionReference: t.funding.transactionReference,
          originatorBankVerificationNumber: t.funding.originatorBankVerificationNumber,
          beneficiaryBankVerificationNumber: t.funding.beneficiaryBankVerificationNumber,
        }
      : {}),
  };
}

function listWalletTransactions(req: SandboxRequest, ctx: RouteContext): Reply {
  const { page, perPage } = pagination(req.query);
  const walletId = req.query.get('walletId');
  if (walletId !== null) walletById(ctx, walletId, 'walletId');
  const type = oneOfQuery(req.query, 'type', [TRANSACTION_TYPE.debit, TRANSACTION_TYPE.credit]);
  const start = isoQuery(req.query, 'startDate');
  const end = isoQuery(req.query, 'endDate');
  // Only with a lag set: seeded records carry fixed dates, which a test's clock may be before.
  const lag = ctx.listingLagMs ?? 0;
  const listedBy = lag > 0 ? ctx.now().getTime() - lag : Number.POSITIVE_INFINITY;
  const matching = ctx.state.walletTransactions.filter(
    (t) =>
      t.createdAt.getTime() <= listedBy &&
      !ctx.state.unlistedTransactionIds.has(t.id) &&
      (walletId === null || t.walletId === walletId) &&
      (type === undefined || t.type === type) &&
      (start === undefined || t.createdAt.getTime() >= start.getTime()) &&
      (end === undefined || t.createdAt.getTime() <= end.getTime()),
  );
  const debitKobo = sum(matching.filter((t) => t.type === TRANSACTION_TYPE.debit));
  const creditKobo = sum(matching.filter((t) => t.type === TRANSACTION_TYPE.credit));
  const p = paginate(newestFirst(matching), page, perPage);
  return ok(
    {
      ...block(p),
      totalDebitAmount: toNaira(debitKobo),
      totalCreditAmount: toNaira(creditKobo),
      totalTransactionValue: toNaira(debitKobo + creditKobo),
      totalTransactionVolume: matching.length,
      transactions: p.items.map(walletTransactionView),
    },
    'Wallet transactions retrieved successfully',
  );
}

const sum = (items: readonly WalletTransaction[]): number =>
  items.reduce((total, t) => total + t.amountKobo, 0);

function transactionById(ctx: RouteContext, id: string): WalletTransaction {
  const found = ctx.state.walletTransactions.find((t) => t.id === id);
  if (!found) throw notFound(`transactionId: transaction ${id} not found`);
  return found;
}

const BANK_FIELDS = [
  'originatorBankCode',
  'originatorBankName',
  'originatorAccountName',
  'originatorAccountNumber',
  'beneficiaryBankCode',
  'beneficiaryBankName',
  'beneficiaryAccountName',
  'beneficiaryAccountNumber',
] as const;

/** A payment-link transaction as GET /transaction/info answers it (CONTRACT.md: with its `amountPaid`). */
function paymentLinkTransactionDetail(t: WireRecord) {
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const number = (value: unknown) => (typeof value === 'number' ? value : 0);
  const amountKobo = toKobo(number(t.amount));
  const chargesKobo = toKobo(number(t.charges));
  return {
    id: text(t.id),
    type: TRANSACTION_TYPE.credit,
    status: typeof t.status === 'string' ? t.status : 'PENDING',
    charges: toNaira(chargesKobo),
    category: text(t.category),
    amount: toNaira(amountKobo),
    amountProcessed: toNaira(amountKobo - chargesKobo),
    sessionId: typeof t.sessionId === 'string' ? t.sessionId : null,
    description: 'Payment link payment',
    createdAt: t.createdAt,
    narration: text(t.narration),
    ...Object.fromEntries(BANK_FIELDS.map((field) => [field, text(t[field])])),
    amountPaid: number(t.amountPaid),
  };
}

function transactionInfo(req: SandboxRequest, ctx: RouteContext): Reply {
  const id = requiredQuery(req.query, 'transactionId');
  const linkTransaction = ctx.state.paymentLinkTransactions.find((t) => t.id === id);
  if (linkTransaction) return ok({ transaction: paymentLinkTransactionDetail(linkTransaction) });
  const t = transactionById(ctx, id);
  return ok({
    transaction: {
      id: t.id,
      type: t.type,
      status: 'SUCCESS',
      charges: toNaira(t.chargesKobo),
      category: t.category,
      amount: toNaira(t.amountKobo),
      amountProcessed: toNaira(settledKobo(t)),
      sessionId: t.sessionId,
      description: t.description,
      createdAt: isoUtc(t.createdAt),
      narration: t.narration ?? '',
      ...bankFields(t),
    },
  });
}

function payoutDetails(req: SandboxRequest, ctx: RouteContext): Reply {
  const id = requiredQuery(req.query, 'transactionId');
  const t = transactionById(ctx, id);
  if (!t.isPayout) throw notFound(`transactionId: ${id} is not a payout`);
  return ok({
    transaction: {
      id: t.id,
      vat: toNaira(t.vatKobo),
      type: t.type,
      amount: toNaira(t.amountKobo),
      status: 'SUCCESS',
      charges: toNaira(t.chargesKobo),
      reference: t.reference,
      sessionId: t.sessionId,
      amountProcessed: toNaira(settledKobo(t)),
      createdAt: isoUtc(t.createdAt),
      narration: t.narration ?? '',
      recipientBankCode: t.beneficiary.bankCode,
      recipientBankName: t.beneficiary.bankName,
      recipientAccountName: t.beneficiary.accountName,
      recipientAccountNumber: t.beneficiary.accountNumber,
      originatorAccountName: t.originator.accountName,
      originatorAccountNumber: t.originator.accountNumber,
    },
  });
}

export const transactionRoutes: readonly Route[] = [
  { method: 'GET', path: PROVIDER_PATHS.walletTransactions, handler: listWalletTransactions },
  { method: 'GET', path: PROVIDER_PATHS.transactionInfo, handler: transactionInfo },
  { method: 'GET', path: PROVIDER_PATHS.payoutDetails, handler: payoutDetails },
];
