/** POST /child/debit (child wallet -> main wallet) and POST /child/bank (child wallet -> bank account). */
import { formatNaira, toNaira } from '../../money.js';
import { MESSAGES, PROVIDER_PATHS, SANDBOX_MODE, SUCCESS, WALLET_CATEGORY } from '../contract.js';
import { bankTransferCharges } from '../fees.js';
import { ok, type Reply, type SandboxRequest } from '../http.js';
import { childById, payoutBeneficiary } from '../lookups.js';
import { commitMove, partyFields } from '../operations.js';
import type { Route, RouteContext } from '../route.js';
import { isoLagos } from '../time.js';
import { decimalAmount, metadata, narration, objectBody, requiredString } from '../validate.js';
import { bankTransferReply, parseBankTransferBody } from './bank-transfer.js';

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
  const { amountKobo } = transfer;
  const { child, wallet } = childById(ctx, childAccountId);
  const beneficiary = payoutBeneficiary(transfer.bankCode, transfer.accountNumber, transfer.accountName);
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
    narration: transfer.narration,
    metadata: transfer.metadata,
    description: `Transfer of ${formatNaira(amountKobo)} from child account ${child.name} to ${transfer.accountName} ${transfer.accountNumber}`,
    withSession: true,
  });
  return bankTransferReply(
    move,
    { ...transfer, chargesKobo, from: wallet, beneficiary },
    {
      debitCharges: toNaira(debitKobo),
      bankTransferCharges: toNaira(bankTransferKobo),
      totalCharges: toNaira(chargesKobo),
    },
  );
}

export const childAccountRoutes: readonly Route[] = [
  { method: 'POST', path: PROVIDER_PATHS.childDebit, handler: childDebit },
  { method: 'POST', path: PROVIDER_PATHS.childBank, handler: childBank },
];
