/** POST /child/debit (child wallet -> main wallet) and POST /child/bank (child wallet -> bank account). */
import { formatNaira, toNaira } from '../../money.js';
import { MESSAGES, PROVIDER_PATHS, SANDBOX_MODE, SUCCESS, WALLET_CATEGORY } from '../contract.js';
import { ok, type Reply, type SandboxRequest } from '../http.js';
import { childById } from '../lookups.js';
import { commitMove, partyFields } from '../operations.js';
import type { Route, RouteContext } from '../route.js';
import { isoLagos } from '../time.js';
import { decimalAmount, metadata, narration, objectBody, requiredString } from '../validate.js';
import { bankTransferReply, commitBankTransfer, parseBankTransferBody } from './bank-transfer.js';

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
  const transfer = parseBankTransferBody(body);
  const { child, wallet } = childById(ctx, childAccountId);
  const debitKobo = ctx.fees.childBankDebitKobo;
  const payout = commitBankTransfer(ctx, {
    path: PROVIDER_PATHS.childBank,
    from: wallet,
    transfer,
    otherChargesKobo: debitKobo,
    description: () =>
      `Transfer of ${formatNaira(transfer.amountKobo)} from child account ${child.name} to ${transfer.accountName} ${transfer.accountNumber}`,
  });
  return bankTransferReply(payout, {
    debitCharges: toNaira(debitKobo),
    bankTransferCharges: toNaira(payout.bankTransferKobo),
    totalCharges: toNaira(payout.transfer.chargesKobo),
  });
}

export const childAccountRoutes: readonly Route[] = [
  { method: 'POST', path: PROVIDER_PATHS.childDebit, handler: childDebit },
  { method: 'POST', path: PROVIDER_PATHS.childBank, handler: childBank },
];
