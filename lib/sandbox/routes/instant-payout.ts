/** POST /settlement/instant/payout: pays out of the main merchant wallet to a bank account, plus fee and VAT. */
import { formatNaira } from '../../money.js';
import { PROVIDER_PATHS, SETTLEMENT_CATEGORY, SETTLEMENT_STATUS, WALLET_CATEGORY } from '../contract.js';
import { bankTransferCharges } from '../fees.js';
import type { Reply, SandboxRequest } from '../http.js';
import { ID_GROUP } from '../ids.js';
import { payoutBeneficiary } from '../lookups.js';
import { commitMove } from '../operations.js';
import type { Route, RouteContext } from '../route.js';
import { objectBody } from '../validate.js';
import { bankTransferReply, parseBankTransferBody } from './bank-transfer.js';

function instantPayout(req: SandboxRequest, ctx: RouteContext): Reply {
  const transfer = parseBankTransferBody(objectBody(req.body));
  const { amountKobo } = transfer;
  const beneficiary = payoutBeneficiary(transfer.bankCode, transfer.accountNumber, transfer.accountName);
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
    narration: transfer.narration,
    metadata: transfer.metadata,
    description: `Instant settlement of ${formatNaira(amountKobo)} to ${transfer.accountName} ${transfer.accountNumber} ${beneficiary.bankName}`,
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
  return bankTransferReply(
    move,
    { ...transfer, chargesKobo, from: main, beneficiary },
    {
      customerMetadata: {
        ...transfer.metadata,
        isInstantSettlement: true,
        isMerchantSettlement: true,
        settlementId,
      },
    },
  );
}

export const instantPayoutRoutes: readonly Route[] = [
  { method: 'POST', path: PROVIDER_PATHS.instantPayout, handler: instantPayout },
];
