/** POST /settlement/instant/payout: pays out of the main merchant wallet to a bank account, plus fee and VAT. */
import { formatNaira, toNaira } from '../../money.js';
import {
  PROVIDER_PATHS,
  SETTLEMENT_CATEGORY,
  SETTLEMENT_STATUS,
  SUCCESS,
  WALLET_CATEGORY,
} from '../contract.js';
import { bankTransferCharges } from '../fees.js';
import type { SandboxRequest } from '../http.js';
import { ok, type Reply } from '../http.js';
import { ID_GROUP } from '../ids.js';
import { payoutBeneficiary } from '../lookups.js';
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
} from '../validate.js';

/** The message the interface describes: amount, beneficiary name, account number, bank name, session id. */
export function transferMessage(
  amountKobo: number,
  name: string,
  number: string,
  bank: string,
  session: string,
) {
  return `Transfer of ${formatNaira(amountKobo)} to ${name} (${number}, ${bank}) was successful. Session ID: ${session}`;
}

function instantPayout(req: SandboxRequest, ctx: RouteContext): Reply {
  const body = objectBody(req.body);
  const amountKobo = decimalAmount(body.amount);
  const code = bankCode(body);
  const number = accountNumber(body);
  const name = accountName(body);
  const text = narration(body);
  const meta = metadata(body);
  const beneficiary = payoutBeneficiary(code, number, name);
  const { feeKobo, vatKobo } = bankTransferCharges(amountKobo, ctx.fees);
  const chargesKobo = feeKobo + vatKobo;
  const main = ctx.state.mainWallet();
  const move = commitMove(ctx, {
    path: PROVIDER_PATHS.instantPayout,
    from: main,
    beneficiary,
    amountKobo,
    chargesKobo,
    vatKobo,
    debitCategory: WALLET_CATEGORY.bankTransfer,
    narration: text,
    metadata: meta,
    description: `Instant settlement of ${formatNaira(amountKobo)} to ${name} ${number} ${beneficiary.bankName}`,
    withSession: true,
  });
  const settlementId = ctx.state.nextId(ID_GROUP.settlement);
  ctx.state.settlements.push({
    seq: ctx.state.nextSeq(),
    id: settlementId,
    amountKobo,
    chargesKobo,
    status: SETTLEMENT_STATUS.successful,
    category: SETTLEMENT_CATEGORY.instant,
    createdAt: move.createdAt,
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
      customerMetadata: { ...meta, isInstantSettlement: true, isMerchantSettlement: true, settlementId },
      originatorWalletId: main.id,
      sessionId,
      ...partyFields(main, beneficiary, { originatorBank: false }),
    },
    transferMessage(amountKobo, name, number, beneficiary.bankName, sessionId),
  );
}

export const instantPayoutRoutes: readonly Route[] = [
  { method: 'POST', path: PROVIDER_PATHS.instantPayout, handler: instantPayout },
];
