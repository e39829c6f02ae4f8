/** POST /child/debit (child wallet -> main wallet) and POST /child/bank (child wallet -> bank account). */
import { formatNaira, toNaira } from '../../money.js';
import { MESSAGES, PROVIDER_PATHS, SANDBOX_MODE, SUCCESS, WALLET_CATEGORY } from '../contract.js';
import { bankTransferCharges } from '../fees.js';
import { ok, type Reply, type SandboxRequest } from '../http.js';
import { childById, payoutBeneficiary } from '../lookups.js';
import { commitMove, partyFields } from '../operations.js';
import type { Route, RouteContext } from '../route.js';
import { isoLagos } from '../time.js';
import {
  accountName,
  accountNumber,
  bankCode,
  decimalAmount,
  metadata,
  narration,
  objectBody,
  requiredString,
} from '../validate.js';
import { transferMessage } from './instant-payout.js';

function childDebit(req: SandboxRequest, ctx: RouteContext): Reply {
  const body = objectBody(req.body);
  const childAccountId = requiredString(body, 'childAccountId');
  const amountKobo = decimalAmount(body.amount);
  const text = narration(body);
  const meta = metadata(body);
  const { child, wallet } = childById(ctx, childAccountId);
  const main = ctx.state.mainWallet();
  const chargesKobo = ctx.fees.childDebitKobo;
  const move = commitMove(ctx, {
    path: PROVIDER_PATHS.childDebit,
    from: wallet,
    to: main,
    amountKobo,
    chargesKobo,
    debitCategory: WALLET_CATEGORY.merchantDebit,
    creditCategory: WALLET_CATEGORY.merchantCredit,
    narration: text,
    metadata: meta,
    description: `Child account ${child.name} debited with ${formatNaira(amountKobo)}`,
    withSession: false,
  });
  return ok(
    {
      paidAt: isoLagos(move.createdAt),
      transactionId: move.debit.id,
      transactionReference: move.reference,
      status: SUCCESS,
      amount: toNaira(amountKobo),
      charges: toNaira(chargesKobo),
      totalAmount: toNaira(amountKobo + chargesKobo),
      description: move.debit.description,
      narration: text,
      merchantId: ctx.state.merchant.id,
      walletId: wallet.id,
      customerMetadata: meta,
      mode: SANDBOX_MODE,
      childAccountId: child.id,
      childAccountName: child.name,
      childAccountNumber: child.accountNumber,
      ...partyFields(wallet, main),
    },
    MESSAGES.childDebit,
  );
}

function childBank(req: SandboxRequest, ctx: RouteContext): Reply {
  const body = objectBody(req.body);
  const childAccountId = requiredString(body, 'childAccountId');
  const amountKobo = decimalAmount(body.amount);
  const code = bankCode(body);
  const number = accountNumber(body);
  const name = accountName(body);
  const text = narration(body);
  const meta = metadata(body);
  const { child, wallet } = childById(ctx, childAccountId);
  const beneficiary = payoutBeneficiary(code, number, name);
  const { feeKobo, vatKobo } = bankTransferCharges(amountKobo, ctx.fees);
  const bankTransferKobo = feeKobo + vatKobo;
  const debitKobo = ctx.fees.childBankDebitKobo;
  const chargesKobo = debitKobo + bankTransferKobo;
  const move = commitMove(ctx, {
    path: PROVIDER_PATHS.childBank,
    from: wallet,
    beneficiary,
    amountKobo,
    chargesKobo,
    vatKobo,
    debitCategory: WALLET_CATEGORY.bankTransfer,
    narration: text,
    metadata: meta,
    description: `Transfer of ${formatNaira(amountKobo)} from child account ${child.name} to ${name} ${number}`,
    withSession: true,
  });
  const sessionId = move.sessionId ?? '';
  return ok(
    {
      paidAt: isoLagos(move.createdAt),
      reference: move.reference,
      transactionId: move.debit.id,
      status: SUCCESS,
      amount: toNaira(amountKobo),
      charges: toNaira(chargesKobo),
      totalAmount: toNaira(amountKobo + chargesKobo),
      description: move.debit.description,
      narration: text,
      originatorWalletId: wallet.id,
      sessionId,
      debitCharges: toNaira(debitKobo),
      bankTransferCharges: toNaira(bankTransferKobo),
      totalCharges: toNaira(chargesKobo),
      ...partyFields(wallet, beneficiary, { originatorBank: false }),
    },
    transferMessage(amountKobo, name, number, beneficiary.bankName, sessionId),
  );
}

export const childAccountRoutes: readonly Route[] = [
  { method: 'POST', path: PROVIDER_PATHS.childDebit, handler: childDebit },
  { method: 'POST', path: PROVIDER_PATHS.childBank, handler: childBank },
];
